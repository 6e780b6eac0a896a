import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { adminKey, api, type Api } from '../../support/api.js';
import { isolated, onCluster, type Isolated } from '../../support/isolated.js';
import { startRedisCluster, type RedisCluster } from '../../support/redis-cluster.js';
import { compactJws } from '../../support/signer.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../support/voucher-fixtures.js';

/**
 * What an outside client sees in the seconds after a Redis Cluster failover (issue 40, item 5):
 * hearth on its own 3+3 cluster, a master killed, and a voucher suite run as soon as every
 * surviving master reports `cluster_state:ok` (a client that waited for the cluster, not for
 * hearth). Each answer is the right one or `503 UNAVAILABLE` with `Retry-After`, never a 504 whose
 * outcome the client cannot know, a 500, or a refusal; honouring Retry-After, every step succeeds
 * within seconds, and each redemption is applied once. The cluster is this file's own (it is
 * killed), so the file runs in the one-Redis pass only.
 */
const VOUCHERS = 12;

interface Answer {
  step: string;
  status: number;
  retryAfter: string | null;
  code: string | undefined;
  at: number;
}

describe.skipIf(onCluster)('a voucher suite right after a Redis Cluster failover', () => {
  let env: Isolated;
  let cluster: RedisCluster;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  const vouchers: string[] = [];

  beforeAll(async () => {
    env = await isolated();
    cluster = await startRedisCluster();
    hearth = await startHearth(
      env.config({ REDIS_URL: `redis+cluster://${cluster.seeds}`, HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '4' }),
      env.log,
    );
    a = api(hearth.port);
    s = await setUpScheme(a);
    for (let i = 0; i < VOUCHERS; i++) vouchers.push(await issueVoucher(a, s, `cert-rf-${randomUUID()}`, 1_000));
  }, 120_000);

  afterAll(async () => {
    await hearth?.close();
    await cluster?.stop();
    await env?.cleanup();
  });

  /** Until every master still running reports the cluster ok and the killed one failed. */
  async function clusterOk(survivors: number[], victim: number): Promise<void> {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const infos = await Promise.all(survivors.map((port) => cluster.cli(port, 'CLUSTER', 'INFO')));
      const nodes = await cluster.cli(survivors[0]!, 'CLUSTER', 'NODES');
      const victimFailed = nodes.split('\n').some((l) => l.includes(`:${victim}@`) && l.includes('fail'));
      if (victimFailed && infos.every((i) => i.includes('cluster_state:ok'))) return;
      if (Date.now() > deadline) throw new Error('the cluster did not recover');
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  it('answers each step rightly or 503 with Retry-After, and every step succeeds within seconds', async () => {
    const masters = await cluster.masters();
    const victim = masters[0]!;
    const killedAt = Date.now();
    await cluster.kill(victim);
    await clusterOk(
      masters.filter((m) => m !== victim),
      victim,
    );
    const okAt = Date.now();
    process.stdout.write(`redis failover: the cluster said ok ${okAt - killedAt} ms after the kill\n`);

    const answers: Answer[] = [];
    /** One step, sent again with the same idempotency key while answered 503, as Retry-After says. */
    async function step(name: string, send: () => Promise<{ status: number; body: unknown; headers: Headers }>) {
      for (;;) {
        const r = await send();
        const code = (r.body as { error?: { code?: string } } | undefined)?.error?.code;
        answers.push({ step: name, status: r.status, retryAfter: r.headers.get('retry-after'), code, at: Date.now() });
        if (r.status !== 503 || Date.now() - okAt > 30_000) return r;
        await new Promise((res) => setTimeout(res, Number(r.headers.get('retry-after') ?? 1) * 1000));
      }
    }

    const done = await Promise.all(
      vouchers.map(async (voucherId) => {
        const got = await step('get voucher', () =>
          a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey }),
        );
        expect(got.status).toBe(200);
        const redeemKey = randomUUID();
        const redeemed = await step('redeem', () =>
          a.call('POST', '/v1/vouchers/redeem', {
            key: s.supplierKey,
            headers: { 'idempotency-key': redeemKey },
            body: { voucherId, supplierDid: s.supplierDid, productId: 'stove-1', amount: 1 },
          }),
        );
        expect(redeemed.status).toBe(201);
        const redemptionId = (redeemed.body as { id: string }).id;
        const proof = compactJws(s.supplier, { redemptionId, delivered: true });
        const claimKey = randomUUID();
        const claimed = await step('claim', () =>
          a.call('POST', '/v1/claims', {
            key: s.supplierKey,
            headers: { 'idempotency-key': claimKey },
            body: { redemptionId, verifiableCredential: { type: 'ProductDeliveryCredential', proof } },
          }),
        );
        expect(claimed.status).toBe(201);
        const claimId = (claimed.body as { id: string }).id;
        const read = await step('get claim', () => a.call('GET', `/v1/claims/${claimId}`, { key: s.implementerKey }));
        expect(read.status).toBe(200);
        return Date.now();
      }),
    );

    const refused = answers.filter((x) => x.status >= 300);
    process.stdout.write(
      `redis failover: ${answers.length} answers after it, ${refused.length} of them 503; ` +
        `the last voucher's suite done ${Math.max(...done) - okAt} ms after the cluster said ok\n`,
    );
    // Nothing but success, or 503 with Retry-After.
    expect(refused.filter((x) => x.status !== 503 || x.code !== 'UNAVAILABLE' || x.retryAfter === null)).toEqual([]);
    expect(Math.max(...done) - okAt).toBeLessThan(15_000);
    // Each redemption applied once, its key's retries answered from it.
    for (const voucherId of vouchers) {
      const v = await a.call('GET', `/v1/vouchers/${voucherId}`, { key: s.implementerKey });
      expect((v.body as { remainingBalance: number }).remainingBalance).toBe(999);
    }
  }, 120_000);
});
