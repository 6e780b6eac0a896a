import type { ActorClient } from '../../src/store/redis/actor-client.js';
import { voucherIdFor } from '../../src/actors/voucher/representation.js';
import type { BenchEnv } from '../lib/env.js';
import { closedLoop, type LevelResult } from '../lib/measure.js';

const attributes = { batchId: 'bench', issuanceDate: '2026-01-01', expiryDate: '2099-12-31' };

/** Issues `count` vouchers of a large value straight through the voucher actor. */
export async function seedVouchers(
  client: ActorClient,
  prefix: string,
  count: number,
  value: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, (_, i) => `${prefix}-${start + i}`);
    await Promise.all(
      batch.map((cert) =>
        client.ask('voucher', voucherIdFor(cert), {
          kind: 'issue',
          requestId: `seed-${cert}`,
          recipientDid: 'did:key:zbench',
          emissionCertificateId: cert,
          value,
          attributes,
        }),
      ),
    );
    ids.push(...batch.map(voucherIdFor));
  }
  return ids;
}

/**
 * Redemptions through the voucher actor (rules, state, commit-before-reply, its ledger entry):
 * spread over 10,000 distinct vouchers, and all on one hot voucher.
 */
export async function redemptions(
  env: BenchEnv,
  client: ActorClient,
  concurrency: number,
  /** Runs between seeding and measuring (the run vacuums there: autovacuum is off here). */
  afterSeeding: () => Promise<void> = () => Promise.resolve(),
): Promise<{ spread: LevelResult; hot: LevelResult }> {
  const spreadIds = await seedVouchers(client, 'spread', 10_000, 1e15);
  const [hotId] = await seedVouchers(client, 'hot', 1, 1e15);
  await afterSeeding();
  let n = 0;
  const redeem = (voucherId: string) =>
    client.ask('voucher', voucherId, {
      kind: 'redeem',
      requestId: `r-${n++}`,
      supplierDid: 'did:key:zsupplier',
      productId: 'stove',
      amount: 1,
    });
  const spread = await closedLoop(concurrency, env.seconds * 1000, (_w, i) =>
    redeem(spreadIds[(i * 7919 + _w * 104729) % spreadIds.length]!),
  );
  const hot = await closedLoop(concurrency, env.seconds * 1000, () => redeem(hotId!));
  return { spread, hot };
}
