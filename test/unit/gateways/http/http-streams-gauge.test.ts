import { afterEach, describe, expect, it } from 'vitest';
import { HttpServer } from '../../../../src/gateways/http/server.js';
import { Router } from '../../../../src/gateways/http/router.js';
import { createLogger } from '../../../../src/log.js';
import { createMetrics, type Metrics } from '../../../../src/metrics.js';

describe('hearth_http_streams_open: the SSE streams a gateway holds', () => {
  let server: HttpServer | undefined;
  afterEach(async () => server?.close(100));

  async function start(metrics: Metrics): Promise<number> {
    const router = new Router();
    router.add({
      method: 'GET',
      path: '/events',
      doc: { operationId: 'events', summary: 'test', tag: 'test', responses: { 200: 'a stream' } },
      handler: () => ({
        status: 200,
        headers: { 'Content-Type': 'text/event-stream' },
        // Open until the client goes.
        stream: (write, signal) =>
          new Promise<void>((resolve) => {
            write(': open\n\n');
            signal.addEventListener('abort', () => resolve(), { once: true });
          }),
      }),
    });
    server = new HttpServer({
      router,
      log: createLogger('silent', 'test'),
      metrics,
      maxBodyBytes: 1024,
      deadlineMs: 300,
    });
    return server.listen('127.0.0.1', 0);
  }

  const open = async (metrics: Metrics): Promise<number> =>
    Number(/hearth_http_streams_open\{route="\/events"\} (\d+)/.exec(await metrics.registry.metrics())?.[1] ?? 0);

  it('counts a stream while it is open, and no more once its client has gone', async () => {
    const metrics = createMetrics();
    const port = await start(metrics);
    const clients = [new AbortController(), new AbortController()];
    for (const c of clients) {
      const res = await fetch(`http://127.0.0.1:${port}/events`, { signal: c.signal });
      await res.body!.getReader().read(); // the first frame: the stream is open
    }
    expect(await open(metrics)).toBe(2);
    clients[0]!.abort();
    await expect.poll(() => open(metrics), { timeout: 5_000 }).toBe(1);
    clients[1]!.abort();
    await expect.poll(() => open(metrics), { timeout: 5_000 }).toBe(0);
  });
});
