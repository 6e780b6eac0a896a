import { setTimeout as sleep } from 'node:timers/promises';
import { DirectSecp256k1HdWallet } from '@cosmjs/proto-signing';
import { AuthInfo, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AccountMissingError,
  AnchorConfirmTimeoutError,
  AnchorTxFailedError,
  BroadcastRejectedError,
  CosmosAnchor,
  type AnchorBlock,
  type CosmosAnchorOptions,
  type SignedAnchor,
} from '../../../src/ledger/cosmos/cosmos-anchor.js';
import { MsgSubmitClaimCodec } from '../../../src/ledger/cosmos/ixo-messages.js';
import { CometFake } from '../../support/comet-fake.js';

/**
 * The anchor against a CometBFT JSON-RPC fake on 127.0.0.1, through the real cosmjs HTTP client.
 * No Redis or Postgres: `save` is an in-memory stand-in for the caller's ledger row.
 */

let mnemonic: string;
let address: string;
let fake: CometFake;
const anchors: CosmosAnchor[] = [];
/** Everything the anchors logged, to check the mnemonic never shows up. */
const logged: string[] = [];
const log = {
  info: (o: object, m: string) => logged.push(JSON.stringify(o) + m),
  warn: (o: object, m: string) => logged.push(JSON.stringify(o) + m),
};

function blockAt(height: number, entries = 3): AnchorBlock {
  return {
    height,
    merkleRoot: height.toString(16).padStart(64, '0'),
    entries: Array.from({ length: entries }, (_, i) => ({ leafHash: `${height}-${i}`.padEnd(64, 'f') })),
  };
}

async function newAnchor(overrides: Partial<CosmosAnchorOptions> = {}): Promise<CosmosAnchor> {
  const anchor = await CosmosAnchor.create(
    {
      mnemonic,
      rpcUrl: fake.url,
      restUrl: 'http://127.0.0.1:9/',
      chainId: 'ixo-5',
      gasPrice: '0.025uixo',
      addressPrefix: 'ixo',
      collectionId: 'hearth',
      agentDid: 'did:ixo:hearth',
      gasPerMessage: 150_000,
      confirmTimeoutMs: 1_500,
      pollIntervalMs: 10,
      ...overrides,
    },
    log,
  );
  anchors.push(anchor);
  return anchor;
}

/**
 * The caller's persistence: a slow write (as Postgres may be) that records, when it completes, what was
 * saved and how many broadcasts the fake had seen by then. Had the anchor not awaited it, the
 * broadcast would land during the write.
 */
function recorder() {
  const saves: Array<{ signed: SignedAnchor; broadcastsBefore: number }> = [];
  const save = async (signed: SignedAnchor) => {
    await sleep(25); // a sleep on purpose: the write's own latency, which the broadcast must wait out
    saves.push({ signed, broadcastsBefore: fake.broadcastCount });
  };
  return { saves, save, last: () => saves.at(-1)?.signed };
}

const signedSequence = (txBytes: Uint8Array) =>
  Number(AuthInfo.decode(TxRaw.decode(txBytes).authInfoBytes).signerInfos[0]?.sequence);

beforeAll(async () => {
  const wallet = await DirectSecp256k1HdWallet.generate(12, { prefix: 'ixo' });
  mnemonic = wallet.mnemonic;
  address = (await wallet.getAccounts())[0]!.address;
});

beforeEach(async () => {
  fake = await CometFake.start({ address, accountNumber: 42, sequence: 0, startHeight: 1000 });
});

afterEach(async () => {
  anchors.splice(0).forEach((anchor) => anchor.close());
  await fake.close();
  // Any two consecutive words of the mnemonic would already be a leak.
  const words = mnemonic.split(' ');
  const pairs = words.slice(1).map((word, i) => `${words[i]} ${word}`);
  const lines = logged.splice(0);
  for (const line of lines) expect(pairs.filter((pair) => line.includes(pair))).toEqual([]);
});

describe('CosmosAnchor against a CometBFT node', () => {
  it('broadcasts one tx carrying every entry, saved before the broadcast, and returns its height and hash', async () => {
    const anchor = await newAnchor();
    const { saves, save } = recorder();
    const result = await anchor.anchor(blockAt(1), undefined, save);

    expect(fake.broadcastCount).toBe(1);
    const [tx] = fake.received;
    expect(tx!.answeredCode).toBe(0);
    expect(tx!.sequence).toBe(0);
    expect(tx!.body.memo).toBe(`hearth block 1 root ${blockAt(1).merkleRoot}`);
    expect(tx!.body.messages.map((m) => MsgSubmitClaimCodec.decode(m.value).claimId)).toEqual(
      blockAt(1).entries.map((e) => e.leafHash),
    );
    expect(result).toEqual({ txHash: tx!.hash, chainHeight: 1001 });
    expect(fake.inclusionHeight(result.txHash)).toBe(1001);
    expect(saves).toHaveLength(1);
    expect(saves[0]!.broadcastsBefore).toBe(0);
    expect(saves[0]!.signed.txHash).toBe(result.txHash);
    expect(Buffer.from(saves[0]!.signed.txBytes)).toEqual(Buffer.from(tx!.bytes));
    expect(logged.filter((line) => line.endsWith('block anchored'))).toHaveLength(1);
  });

  it('tracks the sequence in memory: the next block is signed at sequence + 1 without asking the chain', async () => {
    const anchor = await newAnchor();
    await anchor.anchor(blockAt(1), undefined, recorder().save);
    const queriesAfterFirst = fake.accountQueries;
    const second = await anchor.anchor(blockAt(2), undefined, recorder().save);

    expect(fake.accountQueries).toBe(queriesAfterFirst);
    expect(fake.received.map((t) => [t.sequence, t.answeredCode])).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(second.chainHeight).toBe(1002);
  });

  it('recovers from a sequence mismatch (another process used the account) by re-signing at the expected sequence', async () => {
    const anchor = await newAnchor();
    await anchor.anchor(blockAt(1), undefined, recorder().save);
    fake.sequence = 7; // someone else sent txs 1..6 from this account
    const { saves, save, last } = recorder();
    const result = await anchor.anchor(blockAt(2), undefined, save);

    expect(fake.received.slice(1).map((t) => [t.sequence, t.answeredCode])).toEqual([
      [1, 32],
      [7, 0],
    ]);
    expect(saves.map((s) => s.signed.sequence)).toEqual([1, 7]);
    expect(saves[1]!.broadcastsBefore).toBe(2); // re-signed bytes saved before their broadcast
    expect(last()!.txHash).toBe(result.txHash);
    expect(signedSequence(last()!.txBytes)).toBe(7);
    expect(fake.inclusionHeight(result.txHash)).toBe(result.chainHeight);
  });

  it('names the remedy when the account does not exist, and anchors once it does', async () => {
    fake.accountExists = false;
    const anchor = await newAnchor();
    const { saves, save } = recorder();
    const err: unknown = await anchor.anchor(blockAt(1), undefined, save).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AccountMissingError);
    const message = (err as Error).message;
    expect(message).toContain('Account does not exist on chain');
    expect(message).toContain(`fund the address ${address} or configure a fee grant (LEDGER_FEE_GRANTER)`);
    expect(saves).toHaveLength(0);
    expect(fake.broadcastCount).toBe(0);

    fake.accountExists = true;
    const result = await anchor.anchor(blockAt(1), undefined, save);
    expect(fake.inclusionHeight(result.txHash)).toBe(1001);
    expect(saves).toHaveLength(1);
  });

  it('returns a stored tx that is already included without broadcasting again (restart after confirm)', async () => {
    const { save, last } = recorder();
    const first = await (await newAnchor()).anchor(blockAt(1), undefined, save);
    const restarted = await newAnchor();
    const again = recorder();
    const result = await restarted.anchor(blockAt(1), last(), again.save);

    expect(result).toEqual(first);
    expect(fake.broadcastCount).toBe(1);
    expect(again.saves).toHaveLength(0);
  });

  it('rebroadcasts the same bytes of a stored tx that never reached the chain (crash after save)', async () => {
    const anchor = await newAnchor();
    const stored = await anchor.signBlock(blockAt(1), { accountNumber: 42, sequence: 0 });
    const { saves, save } = recorder();
    const result = await anchor.anchor(blockAt(1), stored, save);

    expect(result.txHash).toBe(stored.txHash);
    expect(fake.received.map((t) => t.hash)).toEqual([stored.txHash]);
    expect(saves).toHaveLength(0);
    expect(fake.inclusionHeight(stored.txHash)).toBe(result.chainHeight);
  });

  it.each(['abci-code-19', 'rpc-error'] as const)(
    'counts a stored tx the node already holds (%s) as accepted and waits for its block',
    async (duplicateAnswer) => {
      fake.holdBlocks = true;
      fake.duplicateAnswer = duplicateAnswer;
      const stored = await (await newAnchor()).signBlock(blockAt(1), { accountNumber: 42, sequence: 0 });
      // The crashed process got this far: broadcast accepted into the mempool, block not yet produced.
      // Only its wait for the block may fail: any other failure would leave nothing broadcast.
      const first = await newAnchor({ confirmTimeoutMs: 50 });
      await first.anchor(blockAt(1), stored, recorder().save).catch((err: unknown) => {
        if (!(err instanceof AnchorConfirmTimeoutError)) throw err;
      });
      expect(
        fake.received.map((t) => t.hash),
        'the first process broadcast it',
      ).toEqual([stored.txHash]);

      const restarted = await newAnchor();
      const produced = setTimeout(() => fake.produceBlock(), 100);
      const result = await restarted.anchor(blockAt(1), stored, recorder().save).finally(() => clearTimeout(produced));

      expect(result).toEqual({ txHash: stored.txHash, chainHeight: 1001 });
      expect(fake.received.map((t) => t.hash)).toEqual([stored.txHash, stored.txHash]);
      expect(fake.received[1]!.answeredCode).toBe(duplicateAnswer === 'abci-code-19' ? 19 : -1);
    },
  );

  it('re-signs a stored tx whose sequence was used by someone else before it was broadcast', async () => {
    const anchor = await newAnchor();
    const stored = await anchor.signBlock(blockAt(1), { accountNumber: 42, sequence: 0 });
    fake.sequence = 3;
    const { saves, save } = recorder();
    const result = await anchor.anchor(blockAt(1), stored, save);

    expect(fake.received.map((t) => [t.sequence, t.answeredCode])).toEqual([
      [0, 32],
      [3, 0],
    ]);
    expect(saves.map((s) => s.signed.txHash)).toEqual([result.txHash]);
    expect(result.txHash).not.toBe(stored.txHash);
  });

  it('does not sign again when a stored tx turns out to have landed after all (lagging indexer, other node)', async () => {
    const { save, last } = recorder();
    const first = await (await newAnchor()).anchor(blockAt(1), undefined, save);
    // After a restart: this node never saw the tx, and its indexer misses it on the first lookup.
    fake.forgetCache();
    fake.searchMisses = 1;
    const again = recorder();
    const result = await (await newAnchor()).anchor(blockAt(1), last(), again.save);

    expect(result).toEqual(first);
    expect(fake.received.map((t) => [t.sequence, t.answeredCode])).toEqual([
      [0, 0],
      [0, 32],
    ]);
    expect(again.saves).toHaveLength(0);
  });

  it('throws other refusals with code, codespace and log; a fee grant configured later re-signs the stored tx', async () => {
    const granter = 'ixo1feegranter00000000000000000000000000000';
    fake.requiredGranter = granter; // the account exists but holds nothing
    const { saves, save, last } = recorder();
    const err: unknown = await (await newAnchor()).anchor(blockAt(1), undefined, save).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BroadcastRejectedError);
    expect((err as Error).message).toMatch(/code 5, codespace sdk, log: .*insufficient funds/);
    expect(saves).toHaveLength(1);

    // The operator sets LEDGER_FEE_GRANTER and restarts; the stored bytes still carry no granter.
    const retry = recorder();
    const result = await (await newAnchor({ feeGranter: granter })).anchor(blockAt(1), last(), retry.save);
    const landed = fake.received.at(-1)!;
    expect(fake.received.map((t) => [t.sequence, t.answeredCode])).toEqual([
      [0, 5],
      [0, 5],
      [0, 0],
    ]);
    expect(landed.hash).toBe(result.txHash);
    expect(landed.authInfo.fee?.granter).toBe(granter);
    expect(retry.saves.map((s) => [s.signed.txHash, s.signed.sequence])).toEqual([[result.txHash, 0]]);
  });

  it('reports a tx that failed in its block, and signs a new one on the next attempt', async () => {
    fake.deliverCode = 1105;
    const anchor = await newAnchor();
    const { save, last } = recorder();
    const err: unknown = await anchor.anchor(blockAt(1), undefined, save).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AnchorTxFailedError);
    expect((err as Error).message).toMatch(/code 1105/);
    const failed = last()!;

    fake.deliverCode = 0;
    const retry = recorder();
    const result = await anchor.anchor(blockAt(1), failed, retry.save);
    expect(result.txHash).not.toBe(failed.txHash);
    expect(retry.saves.map((s) => s.signed.sequence)).toEqual([1]);
    expect(fake.inclusionHeight(result.txHash)).toBe(1002);
  });

  it('times out when the tx is not included, and the next attempt finds it without a new broadcast', async () => {
    fake.holdBlocks = true;
    const anchor = await newAnchor({ confirmTimeoutMs: 60 });
    const { save, last } = recorder();
    await expect(anchor.anchor(blockAt(1), undefined, save)).rejects.toBeInstanceOf(AnchorConfirmTimeoutError);

    fake.produceBlock();
    const result = await anchor.anchor(blockAt(1), last(), save);
    expect(result).toEqual({ txHash: last()!.txHash, chainHeight: 1001 });
    expect(fake.broadcastCount).toBe(1);
  });

  it('runs concurrent calls one after another, so they never race for a sequence', async () => {
    const anchor = await newAnchor();
    const results = await Promise.all([1, 2, 3].map((h) => anchor.anchor(blockAt(h), undefined, recorder().save)));

    expect(fake.received.map((t) => [t.sequence, t.answeredCode])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
    ]);
    expect(results.map((r) => r.chainHeight)).toEqual([1001, 1002, 1003]);
  });

  it('refuses to anchor on a node of another chain', async () => {
    const anchor = await newAnchor({ chainId: 'ixo-testnet' });
    await expect(anchor.anchor(blockAt(1), undefined, recorder().save)).rejects.toThrow(
      /serves chain ixo-5, but LEDGER_CHAIN_ID is ixo-testnet/,
    );
    expect(fake.broadcastCount).toBe(0);
  });

  it('reports chain id and latest height for /health', async () => {
    const anchor = await newAnchor();
    expect(await anchor.status()).toEqual({ chainId: 'ixo-5', latestHeight: 1000 });
    await anchor.anchor(blockAt(1), undefined, recorder().save);
    expect(await anchor.status()).toEqual({ chainId: 'ixo-5', latestHeight: 1001 });
  });
});

describe('CometFake', () => {
  it("answers CometBFT's URI form (GET) as well as JSON-RPC POST", async () => {
    const viaGet = (await (await fetch(`${fake.url}status`)).json()) as { result: { node_info: { network: string } } };
    const viaPost = await (
      await fetch(fake.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'status' }) })
    ).json();
    expect(viaGet.result.node_info.network).toBe('ixo-5');
    expect(viaPost).toMatchObject({ id: 5, result: { sync_info: { latest_block_height: '1000' } } });
  });
});
