import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { startChild } from './child.js';
import type { BenchEnv } from './env.js';

const mainScript = fileURLToPath(new URL('../../src/main.js', import.meta.url));

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A hearth gateway process (ROLE=gateway) on the run's prefix and schema, in front of the run's
 * worker; resolves once its /health answers. Request logs stay off (warn): at info every request
 * would write a line.
 */
export async function startGateway(
  env: BenchEnv,
  extra: Record<string, string> = {},
  nodeArgs: string[] = [],
): Promise<{ base: string; pid: number; stop(): Promise<void> }> {
  const port = await freePort();
  const gateway = startChild(
    mainScript,
    {
      ROLE: 'gateway',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATABASE_URL: env.databaseUrl,
      DATABASE_SCHEMA: env.schema,
      REDIS_URL: env.redisUrl,
      REDIS_PREFIX: env.prefix,
      PIN_ENCRYPTION_KEY: env.pinKey,
      LOG_LEVEL: 'warn',
      NODE_ENV: 'production',
      // The limits are checked on every request, as in a deployment, but set past anything a
      // suite sends: one key or DID carries a whole load here. BENCH_RATE_LIMIT=0 turns them
      // off, to measure what they cost (alternate the two).
      RATE_LIMIT_API_KEY_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
      RATE_LIMIT_DID_PER_MINUTE: process.env.BENCH_RATE_LIMIT ?? '1000000000',
      RATE_LIMIT_AUTH_FAILURES_PER_MINUTE: process.env.BENCH_RATE_LIMIT === '0' ? '0' : '30',
      ...extra,
    },
    () => false,
    nodeArgs,
  );
  gateway.ready.catch(() => undefined); // readiness is polled on /health instead
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const up = await fetch(`${base}/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (up) break;
    if (i > 100) {
      await gateway.stop();
      throw new Error('the gateway did not start');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, pid: gateway.proc.pid ?? 0, stop: () => gateway.stop() };
}
