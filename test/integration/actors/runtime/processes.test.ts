import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { spawnHearth, type HearthProcess } from '../../../support/processes.js';

describe('running as processes', () => {
  let env: Isolated;
  const procs: HearthProcess[] = [];

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.kill()));
    await env.cleanup();
  });

  it('exits non-zero with one line naming DATABASE_URL when it is missing', async () => {
    const { DATABASE_URL: _omit, ...rest } = env.env();
    const proc = spawnHearth(rest);
    expect(await proc.exited).toBe(1);
    expect(proc.stderr).toHaveLength(1);
    expect(proc.stderr[0]).toMatch(
      /^hearth: invalid configuration: DATABASE_URL is missing: set it to a PostgreSQL URL/,
    );
  });

  it('exits non-zero naming LOG_LEVEL when it is not one of the allowed levels', async () => {
    const proc = spawnHearth(env.env({ LOG_LEVEL: 'verbose' }));
    expect(await proc.exited).toBe(1);
    expect(proc.stderr.join('\n')).toMatch(/LOG_LEVEL .*one of debug, info, warn, error/);
  });

  it('says "Database connection failed" with the remedy when Postgres cannot be reached', async () => {
    const proc = spawnHearth(env.env({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }));
    expect(await proc.exited).toBe(1);
    expect(proc.stderr).toHaveLength(1);
    expect(proc.stderr[0]).toMatch(/Database connection failed .*start the database and correct the variable/);
  });

  it('names a missing database as such, with how to create it, when PostgreSQL runs without it', async () => {
    const url = new URL(env.databaseUrl);
    url.pathname = '/hearth_no_such_database';
    const proc = spawnHearth(env.env({ DATABASE_URL: url.toString() }));
    expect(await proc.exited).toBe(1);
    expect(proc.stderr).toHaveLength(1);
    expect(proc.stderr[0]).toMatch(
      /Database "hearth_no_such_database" does not exist on the PostgreSQL server of DATABASE_URL: create it \(createdb hearth_no_such_database/,
    );
    expect(proc.stderr[0]).not.toMatch(/not running/);
  });

  it('refuses to start a process whose ACTOR_PARTITIONS differs from the deployment', async () => {
    await env.redis.hset(env.keys.meta, 'partitions:echo', '7');
    const proc = spawnHearth(env.env({ ACTOR_PARTITIONS: '4' }));
    expect(await proc.exited).toBe(1);
    expect(proc.stderr).toHaveLength(1);
    expect(proc.stderr[0]).toMatch(
      /ACTOR_PARTITIONS mismatch: this process splits "echo" into 4 partitions but the deployment uses 7/,
    );
    await env.redis.del(env.keys.meta);
  });

  it('serves requests with ROLE=gateway and ROLE=worker in two processes, and stops cleanly on SIGTERM', async () => {
    const worker = spawnHearth(env.env({ ROLE: 'worker', LOG_LEVEL: 'info', ACTOR_PARTITIONS: '4' }));
    const gateway = spawnHearth(
      env.env({ ROLE: 'gateway', LOG_LEVEL: 'info', ACTOR_PARTITIONS: '4', HEARTH_DIAGNOSTICS: 'true' }),
    );
    procs.push(worker, gateway);
    const listening = await gateway.waitFor((l) => l.msg === 'hearth listening');
    await worker.waitFor((l) => l.msg === 'partitions taken');
    const base = `http://127.0.0.1:${String(listening.port)}`;

    for (let i = 1; i <= 5; i++) {
      const res = await fetch(`${base}/v1/diagnostics/counters/two-procs`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ by: 2 }),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ count: 2 * i, applied: i });
    }
    // The gateway runs no actors; the worker serves only /health and /metrics.
    expect(gateway.lines.some((l) => l.msg === 'partitions taken')).toBe(false);
    const workerPort = (await worker.waitFor((l) => l.msg === 'hearth listening')).port;
    expect((await fetch(`http://127.0.0.1:${String(workerPort)}/health`)).status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${String(workerPort)}/metrics`)).text();
    expect(metrics).toMatch(/hearth_partitions_owned\{type="counter"\} 4/);
    expect((await fetch(`http://127.0.0.1:${String(workerPort)}/v1/diagnostics/counters/x`)).status).toBe(404);

    expect(await gateway.stop()).toBe(0);
    expect(await worker.stop()).toBe(0);
    expect(worker.lines.some((l) => l.msg === 'partition released' && l.reason === 'worker closing')).toBe(true);
    const live = await env.redis.zrange(env.keys.workers, 0, -1);
    expect(live).toEqual([]);
  });
});
