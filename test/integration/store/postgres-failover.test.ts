import { randomUUID } from 'node:crypto';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { withTimeout } from '../../../src/common/with-timeout.js';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { createSql, type Sql } from '../../../src/store/db.js';
import { adminKey, api, type Api } from '../../support/api.js';
import { eventually, isolated, onCluster, type Isolated } from '../../support/isolated.js';
import { autoFailoverAvailable, startAutoFailover, type AutoFailover } from '../../support/pg-auto-failover.js';
import {
  balanceOf,
  conversionParties,
  depositToPool,
  issueToTreasury,
  stablecoinFromExchange,
} from '../../support/conversion-fixtures.js';
import { CometFake } from '../../support/comet-fake.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../support/voucher-fixtures.js';

/** A decimal amount as shown by the API, equal to `n` to the micro-unit. */
const closeTo = (n: number) => expect.closeTo(n, 6);

/**
 * hearth on pg_auto_failover (a monitor, a primary and its synchronous standby, on loopback),
 * with both nodes in DATABASE_URL. Under signed redemptions and conversions (sagas of seven
 * steps over the implementer's account, the pool and the conversion), each with its idempotency
 * key, the primary's machine dies (SIGKILL to its keeper and its postmaster): no redemption or
 * conversion a client was told of is lost or doubled, no money appears or vanishes, nothing is
 * answered 500 or hangs, requests succeed again after the promotion with no restart, the ledger
 * verifies, the outbox relay delivers each redemption's pending credit to the supplier's account
 * once, and the Cosmos anchoring (on a CometBFT fake) anchors every block once. Then the old
 * primary rejoins as a standby and the service sits idle past its pools' idle timeout: the
 * connections it opens again must find the new primary, not the standby listed first. Last, a
 * planned switchover under the same load.
 *
 * Runs where pg_auto_failover is installed and the tests run as root (`.ci/run` installs it); on
 * CI's Redis Cluster pass it is left out (it tests PostgreSQL, and takes a minute).
 */
const VOUCHERS = 16;
const CLIENTS = 16;
/** Clients converting the implementer's stablecoin to CARBON, one unit at a time, beside them. */
const CONVERTERS = 4;
/** The stablecoin the implementer gets, and what it and the pool start with. */
const USDC = 5_000;
const POOL = { CARBON: 2_000, USDC: 1_000 };
const DEADLINE_MS = 10_000;

interface Attempt {
  status: number;
  ms: number;
  code: string | undefined;
  retryAfter: string | null;
  /** When it was sent and when it was answered (epoch ms). */
  sent: number;
  key?: string;
  at: number;
}

describe.skipIf(!autoFailoverAvailable() || onCluster)('PostgreSQL failover (pg_auto_failover)', () => {
  let formation: AutoFailover;
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let scheme: Scheme;
  let check: Sql;
  const vouchers: string[] = [];
  /** Idempotency key → the redemption id its 201 gave, for every redemption a client was told of. */
  const acknowledged = new Map<string, { voucherId: string; id: string }>();
  /** Idempotency key → the conversion its 201 (or its 202, then read as completed) gave. */
  const converted = new Map<string, string>();
  /** Answers a converting client was not expected to get (a refusal of a valid conversion). */
  const unexpected: string[] = [];
  let implementer = '';
  let implementerKey = '';
  let fake: CometFake;
  let killed = '';

  beforeAll(async () => {
    const started = await startAutoFailover();
    if (!started) throw new Error('pg_auto_failover did not start');
    formation = started;
    env = await isolated();
    // The ledger anchors each block on a chain (a CometBFT fake outside PostgreSQL, as a real
    // chain is): a block whose anchoring was under way when the primary died is anchored once.
    const wallet = await DirectSecp256k1HdWallet.generate(12, { prefix: 'ixo' });
    fake = await CometFake.start({ address: (await wallet.getAccounts())[0]!.address });
    hearth = await startHearth(
      env.config({
        DATABASE_URL: formation.url,
        HEARTH_ADMIN_KEY: adminKey,
        ACTOR_PARTITIONS: '2',
        // The default, which the harness raises for files that do not test the watch.
        DATABASE_PROBE_TIMEOUT_MS: '500',
        REQUEST_DEADLINE_MS: String(DEADLINE_MS),
        LEDGER_BACKEND: 'cosmos',
        LEDGER_MNEMONIC: wallet.mnemonic,
        NETWORK_BLOCKCHAIN_URL: fake.url,
        LEDGER_BATCH_MS: '200',
      }),
      env.log,
    );
    a = api(hearth.port);
    scheme = await setUpScheme(a);
    for (let i = 0; i < VOUCHERS; i++) vouchers.push(await issueVoucher(a, scheme, `cert-failover-${i}`, 100_000));
    // The conversions' money: the implementer's stablecoin from an exchange order, the pool's
    // CARBON from a treasury issuance, both deposited into the pool.
    ({ implementer, implementerKey } = await conversionParties(a));
    await stablecoinFromExchange(a, implementerKey, implementer, USDC);
    await issueToTreasury(a, implementerKey, 'cert-failover-treasury', POOL.CARBON);
    await balanceOf(a, implementer, 'CARBON', (b) => b.available === POOL.CARBON);
    await depositToPool(a, implementerKey, POOL, 'failover-seed');
    check = createSql({ url: formation.url, schema: env.schema, max: 2 });
  }, 240_000);

  afterAll(async () => {
    try {
      // A service that cannot close (a stalled worker) must not leave the formation running.
      await withTimeout(hearth?.close() ?? Promise.resolve(), 60_000, () => new Error('hearth did not close in 60 s'));
    } finally {
      await fake?.close();
      await check?.end({ timeout: 1 });
      await formation?.stop();
      await env?.cleanup();
    }
  }, 180_000);

  /** One signed redemption of 1 unit, by its idempotency key. */
  async function redeemOnce(voucherId: string, key: string): Promise<Attempt & { id?: string }> {
    const sent = Date.now();
    const started = performance.now();
    const r = await a.call('POST', '/v1/vouchers/redeem', {
      key: scheme.supplierKey,
      headers: { 'idempotency-key': key },
      body: { voucherId, supplierDid: scheme.supplierDid, productId: 'stove-1', amount: 1 },
    });
    const ms = performance.now() - started;
    const body = r.body as { id?: string; error?: { code?: string } };
    return {
      status: r.status,
      ms,
      code: body.error?.code,
      retryAfter: r.headers.get('retry-after'),
      sent,
      at: Date.now(),
      ...(r.status === 201 ? { id: body.id } : {}),
    };
  }

  /** Redeems with one key until it is answered 201 (as a client with a retry policy would). */
  async function redeemUntilDone(voucherId: string, attempts: Attempt[], waits: number[]): Promise<void> {
    const key = randomUUID();
    const first = Date.now();
    for (;;) {
      const r = await redeemOnce(voucherId, key);
      attempts.push({ ...r, key });
      if (r.status === 201 && r.id) {
        acknowledged.set(key, { voucherId, id: r.id });
        waits.push(Date.now() - first);
        if (Date.now() - first > 30_000) {
          const mine = attempts
            .filter((x) => x.key === key)
            .map((x) => `${x.sent - first}:${x.status}${x.code ? ' ' + x.code : ''}`);
          const changes = mine.filter((m, i) => i === 0 || m.split(':')[1] !== mine[i - 1]!.split(':')[1]);
          process.stdout.write(`slow key ${key}: ${changes.join(', ')} … ${mine.length} tries\n`);
        }
        return;
      }
      await new Promise((res) => setTimeout(res, r.retryAfter ? 200 : 100));
    }
  }

  /**
   * Converts one unit of the implementer's stablecoin to CARBON with one key, until its saga is
   * known completed: retried on 503/504 and while the key's first try is in progress (409
   * IDEMPOTENCY_IN_PROGRESS), a 202 read at its Location until the saga ends. Any other answer is
   * a refusal of a valid conversion, kept to fail the test.
   */
  async function convertUntilDone(attempts: Attempt[], waits: number[]): Promise<void> {
    const key = randomUUID();
    const first = Date.now();
    for (;;) {
      const sent = Date.now();
      const started = performance.now();
      const r = await a.call('POST', '/v1/conversions/stable-to-carbon', {
        key: implementerKey,
        headers: { 'idempotency-key': key },
        body: { amount: 1, minReceive: 0 },
      });
      const body = r.body as { id?: string; status?: string; error?: { code?: string } };
      const retryAfter = r.headers.get('retry-after');
      attempts.push({
        status: r.status,
        ms: performance.now() - started,
        code: body.error?.code,
        retryAfter,
        sent,
        key,
        at: Date.now(),
      });
      let id = r.status === 201 ? body.id : undefined;
      if (r.status === 202 && body.id) {
        // Still running: its saga goes on without the client (the sweep drives it after a crash).
        const done = await eventually(
          async () => (await a.call('GET', `/v1/conversions/${body.id}`, { key: implementerKey })).body,
          (c: { status?: string; failure?: unknown }) =>
            c.status === 'completed' || c.status === 'failed' || c.status === 'rejected',
          60_000,
        );
        if (done.status !== 'completed') unexpected.push(`${key}: ${done.status} ${JSON.stringify(done.failure)}`);
        id = body.id;
      } else if (
        r.status !== 201 &&
        r.status !== 503 &&
        r.status !== 504 &&
        body.error?.code !== 'IDEMPOTENCY_IN_PROGRESS'
      ) {
        unexpected.push(`${key}: ${r.status} ${JSON.stringify(body)}`);
        return;
      }
      if (id) {
        converted.set(key, id);
        waits.push(Date.now() - first);
        return;
      }
      await new Promise((res) => setTimeout(res, retryAfter ? 200 : 100));
    }
  }

  /**
   * Redemptions by CLIENTS clients (each retrying its key until answered) around `event`: 3 s
   * before it, then until 201s have come for 5 s after it. What was answered after the event.
   */
  async function underLoad(label: string, event: () => Promise<void>): Promise<Attempt[]> {
    const attempts: Attempt[] = [];
    /** How long each key took from its first try to its 201. */
    const waits: number[] = [];
    let stop = false;
    const clients = Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = 0; !stop; i++) await redeemUntilDone(vouchers[(c + i) % VOUCHERS]!, attempts, waits);
    });
    const converters = Array.from({ length: CONVERTERS }, async () => {
      while (!stop) await convertUntilDone(attempts, waits);
    });
    await new Promise((r) => setTimeout(r, 3_000));
    const eventAt = Date.now();
    await event();
    const deadline = Date.now() + 90_000;
    while (Date.now() < deadline) {
      const firstOk = attempts.find((x) => x.sent > eventAt && x.status === 201);
      if (firstOk && Date.now() - firstOk.at > 5_000) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    stop = true;
    await Promise.all([...clients, ...converters]);

    const after = attempts.filter((x) => x.at > eventAt);
    // The first redemption both sent and answered after the event (one answered just after it
    // may have committed just before).
    const firstOk = after.find((x) => x.sent > eventAt && x.status === 201);
    const statuses = new Map<string, number>();
    for (const x of after) {
      const kind = `${x.status} ${x.code ?? ''}`.trim();
      statuses.set(kind, (statuses.get(kind) ?? 0) + 1);
    }
    // What a reader of the CI log sees: how long writes stopped, and what clients were told meanwhile.
    process.stdout.write(
      `postgres ${label}: first 201 ${firstOk ? firstOk.at - eventAt : 'never'} ms after it; ` +
        `answers after it: ${JSON.stringify(Object.fromEntries(statuses))}; slowest answer ${Math.round(Math.max(...after.map((x) => x.ms)))} ms; ` +
        `longest a key waited for its 201 ${Math.max(...waits)} ms; ` +
        `${acknowledged.size} redemptions and ${converted.size} conversions acknowledged so far\n`,
    );
    expect(firstOk, `no redemption succeeded after the ${label}`).toBeDefined();
    // Each key is answered within seconds of PostgreSQL's return, never after its claim's
    // two-minute lapse (before the claims were remembered by token, a key in a thousand was told
    // 409 for two minutes in about half the runs; the slow key's history above says how). The
    // cases' timeouts leave room for such a key to finish, so this line, not a timeout, fails.
    expect(Math.max(...waits)).toBeLessThan(30_000);
    expect(after.filter((x) => x.status >= 500 && x.status !== 503 && x.status !== 504)).toEqual([]);
    expect(after.filter((x) => x.status === 503 && !x.retryAfter)).toEqual([]);
    expect(Math.max(...attempts.map((x) => x.ms))).toBeLessThan(DEADLINE_MS + 2_000);
    return after;
  }

  it('loses no acknowledged redemption or conversion and doubles none when the primary dies under load, answering 503 meanwhile', async () => {
    await underLoad('failover (primary killed)', async () => {
      killed = (await formation.state()).find((n) => n.reported === 'primary')!.name;
      await formation.kill(killed);
    });
    await expectEveryAcknowledgedOnce();
  }, 300_000);

  it('after the old primary rejoins as a standby and the pools sit idle past their timeout, each redemption succeeds at its first try', async () => {
    // The monitor still shows the dead node's last report: restart the one the first test killed.
    formation.restart(killed);
    const primaryName = await formation.settled(180_000);
    // A new pool's first connection goes to the first host, the standby now: it must go on to
    // the primary (postgres.js 3.4 took a hot standby for read-write; scripts/patch-postgres.mjs).
    const fresh = createSql({ url: formation.url, schema: env.schema, max: 1 });
    try {
      const [reached] = await fresh<{ standby: boolean; port: number }[]>`
        SELECT pg_is_in_recovery() AS standby, inet_server_port() AS port`;
      expect(reached).toEqual({ standby: false, port: formation.nodes.find((n) => n.name === primaryName)!.port });
    } finally {
      await fresh.end({ timeout: 1 });
    }
    // The pools' idle timeout is 30 s: every connection closes and the next one is opened anew,
    // through the host list whose first entry may now be the standby.
    await new Promise((r) => setTimeout(r, 35_000));
    const results = [];
    for (let i = 0; i < 8; i++) {
      const key = randomUUID();
      const r = await redeemOnce(vouchers[i]!, key);
      if (r.id) acknowledged.set(key, { voucherId: vouchers[i]!, id: r.id });
      results.push(r);
    }
    expect(results.map((r) => `${r.status} ${r.code ?? ''}`.trim())).toEqual(results.map(() => '201'));
    // /health names the primary by its place in DATABASE_URL (node1 is listed first).
    const health = await a.call('GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body.postgresPrimary).toBe(formation.nodes.findIndex((n) => n.name === primaryName) + 1);
    // And the console's overview, to admins, by address.
    const overview = await a.call('GET', '/v1/operator/overview');
    expect(overview.body.postgres).toMatchObject({
      primary: `127.0.0.1:${formation.nodes.find((n) => n.name === primaryName)!.port}`,
      down: null,
    });
    await expectEveryAcknowledgedOnce();
  }, 300_000);

  it('rides through a planned switchover under load the same way', async () => {
    await formation.settled(60_000);
    await underLoad('switchover', () => formation.switchover());
    await formation.settled(60_000);
    await expectEveryAcknowledgedOnce();
  }, 300_000);

  /**
   * Every acknowledged redemption and conversion is stored once, nothing else is, no money was
   * made or lost, the ledger checks out and every block of it is anchored once.
   */
  async function expectEveryAcknowledgedOnce(): Promise<void> {
    expect(unexpected).toEqual([]);
    await expectConversionsOnce();
    await expectAnchoredOnce();
    const stored = await check<{ id: string; voucher: string }[]>`
      SELECT record_id AS id, actor_key AS voucher FROM actor_records WHERE actor_type = 'voucher' AND kind = 'redemption'`;
    const counts = new Map<string, number>();
    for (const r of stored) counts.set(r.id, (counts.get(r.id) ?? 0) + 1);
    const acked = [...acknowledged.values()];
    expect(acked.filter((r) => counts.get(r.id) !== 1)).toEqual([]);
    // Every client retried its key until it was answered: nothing is stored that nobody was told of.
    expect(stored.length).toBe(acked.length);
    const spent = new Map<string, number>();
    for (const r of acked) spent.set(r.voucherId, (spent.get(r.voucherId) ?? 0) + 1);
    for (const id of vouchers) {
      const v = await a.call('GET', `/v1/vouchers/${id}`, { key: scheme.implementerKey });
      expect((v.body as { remainingBalance: number }).remainingBalance).toBe(100_000 - (spent.get(id) ?? 0));
    }
    const verified = await verifyJournal(check);
    expect(verified.ok).toBe(true);
    // The outbox relay picked up where it was: each acknowledged redemption's pending credit (a
    // tell through the outbox) reached the supplier's account once, none lost, none twice.
    const credited = await balanceOf(a, scheme.supplierDid, 'CARBON', (b) => b.pending === acked.length);
    expect(credited.pending).toBe(acked.length);
  }

  /**
   * Each conversion a client was told of completed once (one saga per key, none stored that no
   * client was told of), and the stablecoin and CARBON between the implementer and the pool add
   * up to what they started with, nothing held any more.
   */
  async function expectConversionsOnce(): Promise<void> {
    const ids = [...converted.values()];
    expect(ids.length).toBeGreaterThan(0);
    expect(new Set(ids).size).toBe(ids.length);
    const stored = await check<{ key: string; status: string }[]>`
      SELECT key, status FROM conversion_views WHERE account = ${implementer}`;
    expect(stored.filter((c) => c.status !== 'completed')).toEqual([]);
    expect(stored.map((c) => c.key).sort()).toEqual([...ids].sort());
    const settled = async () => {
      const account = (await a.call('GET', `/v1/accounts/${encodeURIComponent(implementer)}`)).body.balances;
      const pool = (await a.call('GET', '/v1/pools/CARBON-USDC', { key: implementerKey })).body.reserves;
      return { account, pool };
    };
    const { account, pool } = await eventually(
      settled,
      (s) => s.account.USDC.held === 0 && s.account.CARBON.held === 0,
    );
    // What the completed sagas moved, from their own records (micro-units), against both sides.
    const [moved] = await check<{ paid: string; received: string }[]>`
      SELECT coalesce(sum((doc ->> 'amountIn')::numeric), 0) AS paid,
             coalesce(sum((doc -> 'fill' ->> 'amountOut')::numeric), 0) AS received
      FROM conversion_views WHERE account = ${implementer} AND status = 'completed'`;
    const paid = Number(moved!.paid) / 1e6;
    const received = Number(moved!.received) / 1e6;
    const sides = {
      account: { USDC: account.USDC.available, CARBON: account.CARBON.available },
      pool: { USDC: pool.USDC, CARBON: pool.CARBON },
    };
    expect(sides).toEqual({
      account: { USDC: closeTo(USDC - POOL.USDC - paid), CARBON: closeTo(received) },
      pool: { USDC: closeTo(POOL.USDC + paid), CARBON: closeTo(POOL.CARBON - received) },
    });
  }

  /** Every block of the journal is anchored, by one accepted transaction each. */
  async function expectAnchoredOnce(): Promise<void> {
    const blocks = await eventually(
      () =>
        check<
          {
            height: string;
            anchor_status: string;
            anchor_error: string | null;
            tx_hash: string | null;
            merkle_root: string;
          }[]
        >`SELECT height, anchor_status, anchor_error, tx_hash, merkle_root FROM ledger_blocks ORDER BY height`,
      (bs) => bs.length > 0 && bs.every((b) => b.anchor_status === 'anchored'),
      60_000,
    );
    const notAnchored = blocks.filter((b) => b.anchor_status !== 'anchored');
    expect(notAnchored.map((b) => `block ${b.height}: ${b.anchor_status} (${b.anchor_error})`)).toEqual([]);
    const accepted = fake.received.filter((t) => t.answeredCode === 0);
    // One accepted transaction per block, each naming its block's root, and no block twice.
    const memos = accepted.map((t) => t.body.memo);
    expect(new Set(memos).size).toBe(memos.length);
    expect(memos.sort()).toEqual(blocks.map((b) => `hearth block ${b.height} root ${b.merkle_root}`).sort());
    expect(new Set(accepted.map((t) => t.hash))).toEqual(new Set(blocks.map((b) => b.tx_hash)));
  }
});
