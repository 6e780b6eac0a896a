import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActorClient } from '../../../src/store/redis/actor-client.js';
import { partitionOf } from '../../../src/actors/runtime/partitioning.js';
import type { Runtime } from '../../../src/actors/runtime/runtime.js';
import { voucherActor } from '../../../src/actors/voucher/index.js';
import { isolated, type Isolated } from '../../support/isolated.js';
import { deadLettersOf, startClient, startRuntime, testRuntimeOptions } from '../../support/runtime-harness.js';

const issue = (batchId: string, requestId: string) => ({
  kind: 'issue',
  requestId,
  recipientDid: 'did:key:zh',
  emissionCertificateId: 'c',
  value: 1_000_000,
  attributes: { batchId, issuanceDate: '2026-01-01', expiryDate: '2099-01-01' },
});

describe('a message whose state PostgreSQL refuses', () => {
  let env: Isolated;
  let runtime: Runtime;
  let client: ActorClient;

  beforeAll(async () => {
    env = await isolated();
    runtime = await startRuntime(env, { actors: [voucherActor] });
    client = await startClient(env);
  });

  afterAll(async () => {
    await client.close();
    await runtime.close();
    await env.cleanup();
  });

  it('is dead-lettered alone, and the partition goes on serving its other keys', async () => {
    // Two vouchers in one partition: the bad one must not stall the good one.
    const p = partitionOf('vch_bad', testRuntimeOptions.partitions);
    let good = 'vch_good0';
    for (let i = 1; partitionOf(good, testRuntimeOptions.partitions) !== p; i++) good = `vch_good${i}`;

    // A NUL character: valid JSON, refused by jsonb (the HTTP edge refuses it earlier; the runtime must cope anyway).
    const bad = client.ask('voucher', 'vch_bad', issue('b\u0000', 'r-bad'), 10_000).catch((e: unknown) => e);
    const fine = client.ask<{ id: string }>('voucher', good, issue('ok', 'r-good'), 10_000);

    expect(await bad).toMatchObject({ code: 'ACTOR_FAILED' });
    await expect(fine).resolves.toMatchObject({ id: good });
    const dead = await deadLettersOf(env, 'voucher');
    expect(dead).toHaveLength(1);
    const f = dead[0]![1];
    expect(f[f.indexOf('key') + 1]).toBe('vch_bad');
    expect(f[f.indexOf('error') + 1]).toMatch(/refused by PostgreSQL/);
    // And later messages of the same partition still apply.
    await expect(client.ask('voucher', good, { kind: 'get' })).resolves.toMatchObject({ id: good });
  });
});
