import uWS, { type HttpRequest, type HttpResponse, type TemplatedApp, type us_listen_socket } from 'uWebSockets.js';
import { AppError } from '../../errors/index.js';
import type { Logger } from '../../log.js';
import type { Metrics } from '../../metrics.js';
import { readBody } from './body.js';
import { ClientGone } from './client-gone.js';
import type { HttpContext } from './context.js';
import { appErrorReply, errorReply } from './error-mapper.js';
import { requestIdFrom } from './request-id.js';
import { statusLine, type Reply } from './reply.js';
import type { RouteSpec, Router } from './router.js';
import type { OutageSignal } from '../../actors/runtime/ports.js';

export interface HttpServerOptions {
  router: Router;
  log: Logger;
  metrics: Metrics;
  maxBodyBytes: number;
  /** A handler that has not answered by then is answered 503 UNAVAILABLE (routes may opt out). */
  deadlineMs: number;
  /** Headers added to every reply (CORS, for instance). */
  commonHeaders?: (ctx: Pick<HttpContext, 'headers' | 'method'>) => Record<string, string>;
  /** PostgreSQL's state: while it is down, routes that use it are answered 503 at once. */
  database?: OutageSignal;
}

const bodyMethods = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * The uWebSockets.js app with hearth's request pipeline: route, copy the request out, read the
 * body within the limit, run the handler, map errors, echo the request id, log and count.
 * Writes are skipped once the client has aborted (uWS crashes on writes to an aborted response).
 */
export class HttpServer {
  readonly app: TemplatedApp;
  private listenSocket: us_listen_socket | undefined;
  private inFlight = 0;
  private draining = false;
  private drained: (() => void) | undefined;

  constructor(private readonly o: HttpServerOptions) {
    this.app = uWS.App();
    this.app.any('/*', (res, req) => this.handle(res, req));
  }

  /** Listens; resolves with the bound port (useful with port 0). */
  listen(host: string, port: number): Promise<number> {
    return new Promise((resolve, reject) => {
      this.app.listen(host, port, (socket) => {
        if (!socket) return reject(new Error(`cannot listen on ${host}:${port}: the port is in use or not permitted`));
        this.listenSocket = socket;
        resolve(uWS.us_socket_local_port(socket));
      });
    });
  }

  /** Stops accepting, lets in-flight requests finish for up to `graceMs`. Idempotent. */
  async close(graceMs: number): Promise<void> {
    this.draining = true;
    if (this.listenSocket) {
      uWS.us_listen_socket_close(this.listenSocket);
      this.listenSocket = undefined;
    }
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  private handle(res: HttpResponse, req: HttpRequest): void {
    const started = performance.now();
    const method = req.getMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const reqId = requestIdFrom(headers['x-request-id'] ?? '');
    const client = new ClientGone();
    const answeredEarly = new AbortController();
    res.onAborted(() => client.fire());

    const match = this.o.router.match(method, path);
    // A route pattern, never the raw path: a label per path anyone can make up would grow /metrics for ever.
    const route = match.kind === 'not-found' ? 'unmatched' : match.kind === 'found' ? match.route.path : match.path;
    const base = this.o.log;
    // Read when first asked for (a getpeername call per request otherwise), and only while the
    // response is alive: uWS throws on any access to a finished or aborted one.
    let remote: string | undefined;
    const ip = (): string => {
      if (remote === undefined) {
        try {
          remote = Buffer.from(res.getRemoteAddressAsText()).toString();
        } catch {
          remote = '';
        }
      }
      return remote;
    };
    const body = bodyMethods.has(method)
      ? readBody(res, this.o.maxBodyBytes, Number(headers['content-length'] ?? 0), client)
      : Promise.resolve(Buffer.alloc(0));
    body.catch(() => undefined); // read (and maybe refused) before a handler asks for it

    // The logger child, the query and the signal are made when first read (by a handler, an
    // error reply, a streamed body): most requests need none, and each cost microseconds.
    let log: Logger | undefined;
    let query: URLSearchParams | undefined;
    const ctx: HttpContext = {
      method,
      path,
      route,
      get query() {
        return (query ??= new URLSearchParams(rawQuery));
      },
      rawQuery,
      params: match.kind === 'found' ? match.params : {},
      headers,
      reqId,
      get log() {
        return (log ??= base.child({ reqId }));
      },
      get ip() {
        return ip();
      },
      get signal() {
        return client.signal;
      },
      answered: answeredEarly.signal,
      body: () => body,
    };

    this.inFlight++;
    void this.run(ctx, match, answeredEarly)
      .then((reply) => this.write(res, ctx, reply, client, started))
      .then((reply) => (reply?.stream ? this.stream(res, ctx, reply.stream, client.signal) : undefined))
      .finally(() => {
        this.inFlight--;
        if (this.inFlight === 0) this.drained?.();
      });
  }

  private async run(
    ctx: HttpContext,
    match: ReturnType<Router['match']>,
    answeredEarly: AbortController,
  ): Promise<Reply> {
    try {
      if (this.draining && !(match.kind === 'found' && match.route.serveWhileDraining)) {
        throw new AppError('SHUTTING_DOWN', 'this process is shutting down; retry', undefined, true);
      }
      // A CORS preflight is answered for any path; the CORS headers come with every reply.
      if (ctx.method === 'OPTIONS' && ctx.headers['access-control-request-method']) return { status: 204 };
      if (match.kind === 'not-found') throw new AppError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
      if (match.kind === 'method-not-allowed') {
        const reply = errorReply(new AppError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed here`), ctx.log);
        return { ...reply, headers: { ...reply.headers, Allow: match.allowed.join(', ') } };
      }
      const { route } = match;
      const needsDatabase = route.usesDatabase !== false && this.o.database !== undefined;
      const down = needsDatabase ? this.o.database?.current() : undefined;
      if (down !== undefined) return this.databaseDown(route, down);
      const handled = route.handler(ctx);
      const { deadline } = route;
      if (deadline === 'none' || !(handled instanceof Promise)) return await handled;
      return await this.withinDeadline(handled, ctx, route, needsDatabase, answeredEarly);
    } catch (err) {
      return errorReply(err, ctx.log);
    }
  }

  /**
   * The handler's reply, or a 503 once the deadline passes or PostgreSQL goes down: a store that
   * stops answering (a cut network leaves queries waiting with no error) must not hold the client
   * for ever. The handler goes on (told by `answeredEarly`); its late reply is dropped.
   */
  private withinDeadline(
    handled: Promise<Reply>,
    ctx: HttpContext,
    route: RouteSpec,
    needsDatabase: boolean,
    answeredEarly: AbortController,
  ): Promise<Reply> {
    const own = typeof route.deadline === 'object' ? route.deadline : undefined;
    const ms = own?.ms ?? this.o.deadlineMs;
    let timer: NodeJS.Timeout | undefined;
    let unsubscribe: (() => void) | undefined;
    const late = new Promise<Reply>((resolve, reject) => {
      timer = setTimeout(() => {
        ctx.log.warn({ route: ctx.route, deadlineMs: ms }, 'request deadline passed');
        answeredEarly.abort();
        if (own) return resolve(own.answer());
        reject(
          new AppError(
            'UNAVAILABLE',
            `no answer within ${ms / 1000} s: a store (PostgreSQL or Redis) is not answering; retry later`,
            undefined,
            true,
          ),
        );
      }, ms);
      if (needsDatabase) {
        unsubscribe = this.o.database?.onChange((down) => {
          if (down === undefined) return;
          answeredEarly.abort();
          resolve(this.databaseDown(route, down));
        });
      }
    });
    handled.catch(() => undefined); // a failure after the deadline has no one to tell
    return Promise.race([handled, late]).finally(() => {
      clearTimeout(timer);
      unsubscribe?.();
    });
  }

  /**
   * PostgreSQL is down: the route's own deadline answer (USSD's END line), or 503 UNAVAILABLE.
   * Not logged per request: the watch logs the outage once, and the request line has the status.
   */
  private databaseDown(route: RouteSpec, cause: string): Reply {
    if (typeof route.deadline === 'object') return route.deadline.answer();
    return appErrorReply(
      new AppError(
        'UNAVAILABLE',
        `PostgreSQL cannot be reached (${cause}); retry later`,
        { store: 'postgresql' },
        true,
      ),
    );
  }

  /** Feeds a streamed body until it settles or the client goes; then ends the response. */
  private async stream(res: HttpResponse, ctx: HttpContext, body: NonNullable<Reply['stream']>, aborted: AbortSignal) {
    const write = (chunk: string): boolean => {
      if (aborted.aborted) return false;
      res.cork(() => res.write(chunk));
      return true;
    };
    this.o.metrics.streamsOpen.inc({ route: ctx.route });
    try {
      await body(write, aborted);
    } catch (err) {
      ctx.log.error({ err: err instanceof Error ? err.message : String(err) }, 'stream failed');
    } finally {
      this.o.metrics.streamsOpen.dec({ route: ctx.route });
    }
    if (!aborted.aborted) res.cork(() => res.end());
  }

  private write(
    res: HttpResponse,
    ctx: HttpContext,
    reply: Reply,
    client: ClientGone,
    started: number,
  ): Reply | undefined {
    const seconds = (performance.now() - started) / 1000;
    this.o.metrics.httpRequests.inc({ method: ctx.method, route: ctx.route, status: String(reply.status) });
    this.o.metrics.httpDuration.observe({ method: ctx.method, route: ctx.route }, seconds);
    // The base logger with the request id: the same line as the request's child would write.
    this.o.log.info(
      { reqId: ctx.reqId, method: ctx.method, route: ctx.route, status: reply.status, ms: Math.round(seconds * 1000) },
      'request',
    );
    if (client.gone) return undefined;
    const common = this.o.commonHeaders?.(ctx) ?? {};
    try {
      res.cork(() => {
        res.writeStatus(statusLine(reply.status));
        res.writeHeader('X-Request-Id', ctx.reqId);
        for (const [k, v] of Object.entries({ ...common, ...reply.headers })) res.writeHeader(k, v);
        if (this.draining) res.writeHeader('Connection', 'close');
        // A stream keeps the response open: its body follows (see stream()).
        if (reply.stream) res.write('');
        else res.end(reply.body ?? '', this.draining);
      });
      return reply;
    } catch (err) {
      // A reply that cannot be written (a bad header value) must not take the process down.
      ctx.log.error({ err: err instanceof Error ? err.message : String(err) }, 'reply could not be written');
      if (!client.gone) res.close();
      return undefined;
    }
  }
}
