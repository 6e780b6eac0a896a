import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpServer } from '../../../../src/gateways/http/server.js';
import { Router } from '../../../../src/gateways/http/router.js';
import { json } from '../../../../src/gateways/http/reply.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics } from '../../../../src/metrics.js';

/** A keep-alive connection that sends one request at a time and reads one whole reply. */
function connection(port: number): Promise<{ socket: Socket; get(path: string): Promise<string> }> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      let pending: ((r: string) => void) | undefined;
      let buf = '';
      socket.on('data', (d) => {
        buf += d.toString();
        const end = buf.indexOf('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(buf)?.[1] ?? 0);
        if (end >= 0 && buf.length >= end + 4 + length) {
          const reply = buf.slice(0, end + 4 + length);
          buf = buf.slice(end + 4 + length);
          pending?.(reply);
        }
      });
      socket.on('error', () => undefined);
      resolve({
        socket,
        get: (path) =>
          new Promise((r) => {
            pending = r;
            socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
          }),
      });
    });
  });
}

describe('HTTP server: draining and deadlines per route', () => {
  const never = new Promise<never>(() => undefined);
  let release: () => void = () => undefined;
  /** Resolves once /slow's handler runs: its request is in flight. */
  let slowArrived: Promise<void> = Promise.resolve();
  let server: HttpServer | undefined;

  afterEach(async () => {
    release();
    await server?.close(100);
  });

  async function start(): Promise<number> {
    const router = new Router();
    const doc = { operationId: 'test', summary: 'test', tag: 'test', responses: { 200: 'ok' } };
    const slow = new Promise<void>((r) => (release = r));
    let arrived: () => void = () => undefined;
    slowArrived = new Promise<void>((r) => (arrived = r));
    router.add({
      method: 'GET',
      path: '/slow',
      doc,
      handler: async () => (arrived(), await slow, json(200, { slow: true })),
    });
    router.add({ method: 'GET', path: '/plain', doc, handler: () => json(200, { plain: true }) });
    router.add({
      method: 'GET',
      path: '/ip',
      doc,
      // Read after an await (a real pause, on purpose): the address is looked up when first asked
      // for, not at arrival.
      handler: async (ctx) => (await new Promise((r) => setTimeout(r, 5)), json(200, { ip: ctx.ip })),
    });
    router.add({
      method: 'GET',
      path: '/aggregator',
      doc,
      serveWhileDraining: true,
      handler: () => json(200, { served: true }),
    });
    router.add({ method: 'GET', path: '/stuck', doc, handler: () => never });
    router.add({
      method: 'GET',
      path: '/stuck-own',
      doc,
      deadline: { ms: 150, answer: () => ({ status: 200, body: 'END busy' }) },
      handler: () => never,
    });
    server = new HttpServer({
      router,
      log: createLogger('silent', 'test'),
      metrics: createMetrics(),
      maxBodyBytes: 1024,
      deadlineMs: 300,
    });
    return server.listen('127.0.0.1', 0);
  }

  it("tells a handler the caller's address when it asks for it", async () => {
    const port = await start();
    const c = await connection(port);
    const reply = await c.get('/ip');
    expect(reply).toMatch(/^HTTP\/1\.1 200/);
    expect(JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4))).toEqual({
      ip: expect.stringMatching(/127\.0\.0\.1$/),
    });
    c.socket.destroy();
  });

  it('answers a route that opted in while draining (closing its connection), and 503 to the others', async () => {
    const port = await start();
    const [busy, a, b] = await Promise.all([connection(port), connection(port), connection(port)]);
    void busy.get('/slow'); // keeps the server draining
    await slowArrived;
    const closing = server!.close(5_000);
    const plain = await a.get('/plain');
    expect(plain).toMatch(/^HTTP\/1.1 503/);
    expect(plain).toMatch(/SHUTTING_DOWN/);
    const served = await b.get('/aggregator');
    expect(served).toMatch(/^HTTP\/1.1 200/);
    expect(served).toMatch(/connection: close/i);
    release();
    await closing;
    for (const c of [busy, a, b]) c.socket.destroy();
  });

  it('answers 503 UNAVAILABLE at the deadline, or the route’s own answer at its own', async () => {
    const port = await start();
    const c = await connection(port);
    let started = Date.now();
    const stuck = await c.get('/stuck');
    expect(Date.now() - started).toBeGreaterThanOrEqual(280);
    expect(stuck).toMatch(/^HTTP\/1.1 503/);
    expect(stuck).toMatch(/"code":"UNAVAILABLE"/);
    expect(stuck).toMatch(/Retry-After: 1/i);
    started = Date.now();
    const own = await c.get('/stuck-own');
    expect(Date.now() - started).toBeLessThan(1_000); // its own 150 ms, not the server's 300 (the answer tells too)
    expect(own).toMatch(/^HTTP\/1.1 200/);
    expect(own.endsWith('END busy')).toBe(true);
    c.socket.destroy();
  });
});
