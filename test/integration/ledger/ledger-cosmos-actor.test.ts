import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../src/hearth.js';
import { blockEntries, rangeOf, type RangeColumns } from '../../../src/ledger/block-entries.js';
import { MsgSubmitClaimCodec } from '../../../src/ledger/cosmos/ixo-messages.js';
import { verifyJournal } from '../../../src/ledger/verify.js';
import { adminKey, api } from '../../support/api.js';
import { CometFake } from '../../support/comet-fake.js';
import { eventually, isolated, type Isolated } from '../../support/isolated.js';

/** The ledger actor on the cosmos backend, end to end: entries → journal block → one tx on the fake chain. */
describe('ledger: the cosmos backend through the ledger actor', () => {
  let env: Isolated;
  let fake: CometFake;
  let mnemonic = '';
  let hearth: Hearth | undefined;
  let regulatorKey = '';

  const start = async (): Promise<Hearth> =>
    startHearth(
      env.config({
        HEARTH_ADMIN_KEY: adminKey,
        ACTOR_PARTITIONS: '2',
        LEDGER_BACKEND: 'cosmos',
        LEDGER_MNEMONIC: mnemonic,
        NETWORK_BLOCKCHAIN_URL: fake.url,
        LEDGER_BATCH_SIZE: '10',
        LEDGER_BATCH_MS: '50',
      }),
      env.log,
    );

  const enqueue = (from: number, n: number) => env.sql`
    INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload)
    SELECT 'voucher', 'v-1', i || '-0', 0, jsonb_build_object('type', 'voucher.redeemed', 'n', i)
    FROM generate_series(${from}::int, ${from + n - 1}::int) AS i`;

  const blocks = () =>
    env.sql<({ height: string; anchor_status: string; tx_hash: string | null; merkle_root: string } & RangeColumns)[]>`
      SELECT height, anchor_status, tx_hash, merkle_root, after_txid, after_entry, last_txid, last_entry
      FROM ledger_blocks ORDER BY height`;

  beforeAll(async () => {
    env = await isolated();
    const wallet = await DirectSecp256k1HdWallet.generate(12, { prefix: 'ixo' });
    mnemonic = wallet.mnemonic;
    const [account] = await wallet.getAccounts();
    fake = await CometFake.start({ address: account!.address, accountExists: false });
  });

  afterAll(async () => {
    await hearth?.close();
    await fake.close();
    await env.cleanup();
  });

  it('keeps blocks pending and reports "Account does not exist on chain" in /health while the signer is unfunded', async () => {
    hearth = await start();
    const a = api(hearth.port);
    regulatorKey = (await a.call('POST', '/v1/api-keys', { body: { role: 'regulator' } })).body.key as string;
    await enqueue(0, 25);
    const health = await eventually(
      async () => (await a.call('GET', '/health', { key: '' })).body,
      (h) => typeof h.ledger?.lastError === 'string',
    );
    expect(health.status).toBe('ok'); // the service itself is fine: entries wait, none is lost
    expect(health.ledger).toMatchObject({ backend: 'cosmos', status: 'degraded', queuedEntries: 0 });
    expect(health.ledger.lastError).toContain('Account does not exist on chain');
    expect(health.ledger.lastError).toContain(fake.address);
    expect(health.ledger.lastError).toContain('LEDGER_FEE_GRANTER');
    expect(health.ledger.pendingAnchors).toBe(3);
    const block = await a.call('GET', '/v1/ledger/blocks/1', { key: regulatorKey });
    expect(block.body.anchor).toMatchObject({ status: 'pending', txHash: null });
    expect(fake.broadcastCount).toBe(0);
  });

  it('anchors every pending block, one tx each carrying its entries, once the account exists', async () => {
    fake.accountExists = true;
    const rows = await eventually(blocks, (bs) => bs.length === 3 && bs.every((b) => b.anchor_status === 'anchored'));
    expect(new Set(rows.map((b) => b.tx_hash)).size).toBe(3);
    const accepted = fake.received.filter((t) => t.answeredCode === 0);
    expect(accepted.map((t) => t.hash).sort()).toEqual(rows.map((b) => b.tx_hash).sort());
    for (const b of rows) {
      const tx = accepted.find((t) => t.hash === b.tx_hash)!;
      const leaves = await blockEntries(env.sql, { height: Number(b.height), range: rangeOf(b) });
      const body = tx.body;
      expect(body.memo).toBe(`hearth block ${b.height} root ${b.merkle_root}`);
      expect(body.messages.map((m) => MsgSubmitClaimCodec.decode(m.value).claimId)).toEqual(
        leaves.map((l) => l.leafHash),
      );
    }
    expect(accepted.map((t) => t.sequence)).toEqual([0, 1, 2]);
    const a = api(hearth!.port);
    const block = await a.call('GET', '/v1/ledger/blocks/2', { key: regulatorKey });
    expect(block.body.anchor).toMatchObject({ status: 'anchored', error: null });
    expect(block.body.anchor.chainHeight).toBe(fake.inclusionHeight(block.body.anchor.txHash));
    const health = await eventually(
      async () => (await a.call('GET', '/health', { key: '' })).body.ledger,
      (l) => l.lastError === null,
    );
    expect(health).toMatchObject({ status: 'ok', pendingAnchors: 0 });
  });

  it('re-broadcasts the same signed tx after a restart while it waited for inclusion, and anchors it once', async () => {
    fake.holdBlocks = true;
    await enqueue(100, 5);
    const signed = await eventually(
      async () => (await blocks()).find((b) => Number(b.height) === 4),
      (b) => b?.tx_hash != null && fake.broadcastCount >= 4,
    );
    await hearth!.close();
    hearth = await start();
    // The restarted actor re-broadcasts the stored bytes (the fake answers "already in cache").
    await eventually(
      () => Promise.resolve(fake.broadcastCount),
      (n) => n >= 5,
    );
    fake.produceBlock();
    const after = await eventually(
      async () => (await blocks()).find((b) => Number(b.height) === 4),
      (b) => b?.anchor_status === 'anchored',
    );
    expect(after?.tx_hash).toBe(signed?.tx_hash);
    const forBlock4 = fake.received.filter((t) => t.body.memo.startsWith('hearth block 4 '));
    expect(new Set(forBlock4.map((t) => t.hash))).toEqual(new Set([signed?.tx_hash]));
    expect(await verifyJournal(env.sql)).toMatchObject({ ok: true, blocks: 4, entries: 30 });
  });
});
