import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { createSql } from '../../../../src/store/db.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { startProxy, viaProxy } from '../../../support/tcp-proxy.js';
import {
  deadLettersOf,
  startClient,
  startRuntime,
  tellFields,
  testRuntimeOptions,
} from '../../../support/runtime-harness.js';

/**
 * An owner paused past its lease can have an XREADGROUP reach Redis after its successor claimed
 * the partition's pending entries: what it read then sits in its own pending list, and its
 * commit is fenced. The current owner takes such entries back after a lease lifetime.
 */
describe('entries stranded with a paused earlier owner', () => {
  let env: Isolated;

  beforeAll(async () => {
    env = await isolated();
  });

  afterAll(async () => {
    await env.cleanup();
  });

  /** Adds an `add` entry and reads it as a paused owner would, before the live owner can. */
  async function strand(key: string, by: number): Promise<{ stream: string; id: string }> {
    const stream = env.keys.mailbox('counter', partitionOf(key, testRuntimeOptions.partitions));
    const fields = tellFields(key, { kind: 'add', by });
    // In one MULTI nothing runs between the entry's arrival and the paused owner's read.
    const [[, id]] = (await env.redis
      .multi()
      .xadd(stream, '*', ...fields)
      .xreadgroup('GROUP', env.keys.group, 'paused-old-owner', 'COUNT', 10, 'STREAMS', stream, '>')
      .exec()) as [[null, string]];
    const [, , , holders] = (await env.redis.xpending(stream, env.keys.group)) as [number, string, string, string[][]];
    expect(holders.map(([name]) => name)).toContain('paused-old-owner');
    return { stream, id };
  }

  const pendingIds = async (stream: string) =>
    ((await env.redis.xpending(stream, env.keys.group, '-', '+', 100)) as Array<[string]>).map(([id]) => id);

  it('applies one nothing newer of its key overtook, and sets aside one that later messages did', async () => {
    const runtime = await startRuntime(env, { options: { leaseTtlMs: 2_000 } });
    const client = await startClient(env);
    try {
      // Both partitions are taken and prepared (their earlier pending entries claimed) by now.
      for (const key of ['quiet', 'busy']) {
        expect(await client.ask<{ count: number }>('counter', key, { kind: 'add', by: 1 })).toMatchObject({ count: 1 });
      }
      const quiet = await strand('quiet', 10);
      const busy = await strand('busy', 100);
      // A later message of `busy` is applied while its older one sits with the paused owner.
      expect(await client.ask<{ count: number }>('counter', 'busy', { kind: 'add', by: 1 })).toMatchObject({
        count: 2,
      });

      for (const s of [quiet, busy]) {
        await eventually(
          () => pendingIds(s.stream),
          (ids) => !ids.includes(s.id),
          15_000,
        );
      }
      expect(await client.ask<{ count: number }>('counter', 'quiet', { kind: 'get' })).toMatchObject({ count: 11 });
      // Applying it now would break per-key order; skipping it as a redelivery would lose it.
      expect(await client.ask<{ count: number }>('counter', 'busy', { kind: 'get' })).toMatchObject({ count: 2 });
      const dead = await deadLettersOf(env, 'counter');
      expect(dead).toHaveLength(1);
      const f = dead[0]![1];
      expect(f[f.indexOf('id') + 1]).toBe(busy.id);
      expect(f[f.indexOf('error') + 1]).toMatch(/paused past its lease/);
    } finally {
      await client.close();
      await runtime.close();
    }
  });

  it('drops the mark of one it lets through before committing it (a hand-over after the commit must not set it aside)', async () => {
    const pg = viaProxy(env.databaseUrl);
    const proxy = await startProxy(pg.host, pg.port);
    const sql = createSql({ url: viaProxy(env.databaseUrl, proxy.port).url, schema: env.schema, max: 2 });
    const runtime = await startRuntime(env, { options: { leaseTtlMs: 2_000 }, sql });
    const client = await startClient(env);
    try {
      // Its state is in the worker's memory: applying the entry needs nothing from PostgreSQL.
      expect(await client.ask<{ count: number }>('counter', 'through', { kind: 'add', by: 1 })).toMatchObject({
        count: 1,
      });
      const held = await strand('through', 10);
      const marks = env.keys.stranded('counter', partitionOf('through', testRuntimeOptions.partitions));
      // Marked as the sweep that takes it back marks it; its commit will not come back, so the
      // entry stays pending, unacknowledged, after it was let through.
      await env.redis.sadd(marks, held.id);
      proxy.stall();
      expect(
        await eventually(
          () => env.redis.sismember(marks, held.id),
          (marked) => marked === 0,
          15_000,
          50,
        ),
      ).toBe(0);
      expect(await pendingIds(held.stream)).toContain(held.id);
    } finally {
      proxy.restore();
      await client.close();
      await runtime.close();
      await sql.end({ timeout: 1 });
      await proxy.close();
    }
  });

  it('still sets one aside when the owner that took it back lost the partition before applying it', async () => {
    // Long leases: no sweep runs by itself here; the test plays the take-back.
    const options = { leaseTtlMs: 60_000 };
    const first = await startRuntime(env, { options, workerId: 'first-owner' });
    const client = await startClient(env);
    try {
      expect(await client.ask<{ count: number }>('counter', 'handed', { kind: 'add', by: 1 })).toMatchObject({
        count: 1,
      });
      const held = await strand('handed', 100);
      expect(await client.ask<{ count: number }>('counter', 'handed', { kind: 'add', by: 1 })).toMatchObject({
        count: 2,
      });
      // The first owner's sweep marks the entry and claims it, then the partition changes hands
      // before its next round reads it.
      const marks = env.keys.stranded('counter', partitionOf('handed', testRuntimeOptions.partitions));
      await env.redis.sadd(marks, held.id);
      await env.redis.xclaim(held.stream, env.keys.group, 'first-owner', 0, held.id, 'JUSTID');
      await first.close();

      const second = await startRuntime(env, { options, workerId: 'second-owner' });
      try {
        await eventually(
          () => pendingIds(held.stream),
          (ids) => !ids.includes(held.id),
          15_000,
        );
        expect(await pendingIds(held.stream)).not.toContain(held.id);
        expect(await client.ask<{ count: number }>('counter', 'handed', { kind: 'get' })).toMatchObject({ count: 2 });
        const dead = (await deadLettersOf(env, 'counter')).filter(([, f]) => f[f.indexOf('id') + 1] === held.id);
        expect(dead).toHaveLength(1);
        expect(dead[0]![1][dead[0]![1].indexOf('error') + 1]).toMatch(/paused past its lease/);
        expect(await env.redis.sismember(marks, held.id)).toBe(0);
      } finally {
        await second.close();
      }
    } finally {
      await client.close();
      await first.close();
    }
  });
});
