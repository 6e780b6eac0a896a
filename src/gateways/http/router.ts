import type { z } from 'zod';
import type { ErrorCode } from '../../errors/index.js';
import type { HttpContext } from './context.js';
import type { Reply } from './reply.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'HEAD';
export type Handler = (ctx: HttpContext) => Promise<Reply> | Reply;

/** What the OpenAPI document says of a route (generated from the same zod schemas the route parses with). */
export interface RouteDoc {
  /** camelCase and unique in the document (`issueVoucher`): what generated clients name the call. */
  operationId: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /**
   * Status → description of the route's own answers: its successes, and errors whose body is not
   * the error body (health's 503).
   */
  responses: Record<number, string>;
  /**
   * The error codes this route answers itself (its 404s, rule refusals, a query or path that fails
   * validation, an actor's timeout). The document adds those of every route of its kind: API-key or
   * UCAN authentication, a JSON body (read with `jsonBody`), Idempotency-Key, PostgreSQL down and
   * draining (docs/openapi.ts, impliedErrors).
   */
  errors?: readonly ErrorCode[];
  /** Media types the body may come in. Default `application/json`. */
  bodyTypes?: readonly string[];
  /** Media type(s) of the answers below 400. Default `application/json`. */
  responseType?: string | readonly string[];
  /** The shape of the route's JSON success answer (its 200, 201 or 202 in `responses`). */
  responseBody?: z.ZodType;
  /** Per status, where answers differ in shape: two successes, or an error with a body of its own. */
  responseBodies?: Record<number, z.ZodType>;
  /** No API key needed. */
  public?: boolean;
  /** How the caller authenticates (default an API key): `ucan` for the oracle's routes (spec 001). */
  auth?: 'apiKey' | 'ucan';
  /**
   * `required`: the route refuses a request without an Idempotency-Key (400
   * IDEMPOTENCY_KEY_REQUIRED), as a route that moves money does (conversion/caller.ts,
   * stepIdOf). The document marks the header required there, and optional on every other POST.
   */
  idempotencyKey?: 'required';
}

export interface RouteSpec {
  method: Method;
  /** `/v1/vouchers/:id` style; a `:name` segment matches one non-empty path segment. */
  path: string;
  handler: Handler;
  /** Required: every route is in the OpenAPI document. */
  doc: RouteDoc;
  /**
   * Every route without one is answered 503 UNAVAILABLE at REQUEST_DEADLINE_MS. `none`: the
   * handler may outlast it (it waits on a language model, bounded by that model's own idle
   * timeout). An object: this route's own deadline and what it answers then.
   */
  deadline?: 'none' | { ms: number; answer: () => Reply };
  /**
   * `false` for a route that never touches PostgreSQL (health, metrics, docs): it is served while
   * PostgreSQL is down. Every other route is answered 503 UNAVAILABLE at once then (or with its
   * deadline's own answer), and so are its requests in flight when PostgreSQL goes.
   */
  usesDatabase?: false;
  /**
   * Served while the process drains (its reply then closes the connection), instead of 503
   * SHUTTING_DOWN: for clients that cannot retry elsewhere, such as a USSD aggregator.
   */
  serveWhileDraining?: boolean;
}

interface Compiled extends RouteSpec {
  segments: string[];
}

export type Match =
  | { kind: 'found'; route: RouteSpec; params: Record<string, string> }
  /** `path`: the pattern of the first route the path matched (a bounded metrics label). */
  | { kind: 'method-not-allowed'; allowed: Method[]; path: string }
  | { kind: 'not-found' };

/** A small router: static segments beat parameters, so `/messages/abort` wins over `/messages/:id`. */
export class Router {
  private readonly routes: Compiled[] = [];

  add(spec: RouteSpec): this {
    const segments = split(spec.path);
    if (this.routes.some((r) => r.method === spec.method && r.path === spec.path)) {
      throw new Error(`route registered twice: ${spec.method} ${spec.path}`);
    }
    this.routes.push({ ...spec, segments });
    // More static segments first, so the most specific route matches.
    this.routes.sort((a, b) => specificity(b) - specificity(a));
    return this;
  }

  list(): readonly RouteSpec[] {
    return this.routes;
  }

  match(method: string, path: string): Match {
    const parts = split(path);
    const allowed: Method[] = [];
    let pattern = '';
    for (const route of this.routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allowed.push(route.method);
      pattern ||= route.path;
    }
    return allowed.length ? { kind: 'method-not-allowed', allowed, path: pattern } : { kind: 'not-found' };
  }
}

function split(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function specificity(r: Compiled): number {
  return r.segments.reduce((n, s) => n * 2 + (s.startsWith(':') ? 0 : 1), r.segments.length * 1024);
}

function matchSegments(pattern: string[], parts: string[]): Record<string, string> | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i] as string;
    const v = parts[i] as string;
    if (p.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(v);
      } catch {
        return undefined;
      }
      // Control characters (NUL above all, which PostgreSQL refuses) never name a resource.
      if (hasControlCharacter(decoded)) return undefined;
      params[p.slice(1)] = decoded;
    } else if (p !== v) {
      return undefined;
    }
  }
  return params;
}

function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return true;
  }
  return false;
}
