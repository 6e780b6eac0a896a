import { createHash, createPublicKey, verify } from 'node:crypto';
import { DirectSecp256k1HdWallet, makeSignBytes, makeSignDoc } from '@cosmjs/proto-signing';
import { PubKey } from 'cosmjs-types/cosmos/crypto/secp256k1/keys';
import { SignMode } from 'cosmjs-types/cosmos/tx/signing/v1beta1/signing';
import { AuthInfo, TxBody, TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import { beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/log.js';
import { CosmosAnchor, type AnchorBlock, type CosmosAnchorOptions } from '../../../src/ledger/cosmos/cosmos-anchor.js';
import { ledgerRegistry, msgSubmitClaimTypeUrl, MsgSubmitClaimCodec } from '../../../src/ledger/cosmos/ixo-messages.js';

const granter = 'ixo1granter0000000000000000000000000000000';
const root = 'ab'.repeat(32);
const block: AnchorBlock = {
  height: 7,
  merkleRoot: root,
  entries: [{ leafHash: '11'.repeat(32) }, { leafHash: '22'.repeat(32) }, { leafHash: '33'.repeat(32) }],
};

let mnemonic: string;
let walletPubkey: Uint8Array;

function options(overrides: Partial<CosmosAnchorOptions> = {}): CosmosAnchorOptions {
  return {
    mnemonic,
    // Nothing listens here: signing must not need the chain.
    rpcUrl: 'http://127.0.0.1:9/',
    restUrl: 'http://127.0.0.1:9/',
    chainId: 'ixo-5',
    gasPrice: '0.025uixo',
    addressPrefix: 'ixo',
    collectionId: 'hearth-collection',
    agentDid: 'did:ixo:hearth',
    gasPerMessage: 150_000,
    confirmTimeoutMs: 1_000,
    pollIntervalMs: 10,
    ...overrides,
  };
}

function decode(txBytes: Uint8Array) {
  const raw = TxRaw.decode(txBytes);
  return { raw, body: TxBody.decode(raw.bodyBytes), authInfo: AuthInfo.decode(raw.authInfoBytes) };
}

/** Wraps a 33-byte compressed secp256k1 key in SPKI DER, so node:crypto can verify with it. */
function secp256k1PublicKey(compressed: Uint8Array) {
  const spkiPrefix = Buffer.from('3036301006072a8648ce3d020106052b8104000a032200', 'hex');
  return createPublicKey({ key: Buffer.concat([spkiPrefix, compressed]), format: 'der', type: 'spki' });
}

beforeAll(async () => {
  const wallet = await DirectSecp256k1HdWallet.generate(12, { prefix: 'ixo' });
  mnemonic = wallet.mnemonic;
  const [account] = await wallet.getAccounts();
  walletPubkey = account!.pubkey;
});

describe('MsgSubmitClaim codec', () => {
  it('writes fields 1-6 with the numbers of the ixo proto, omitting defaults', () => {
    const bytes = MsgSubmitClaimCodec.encode({
      collectionId: 'c',
      claimId: 'd',
      agentDid: 'e',
      agentAddress: 'f',
      adminAddress: 'g',
      useIntent: true,
    }).finish();
    // tag = field << 3 | wire type: 0x0a = 1/len, 0x12 = 2/len, 0x1a = 3/len, 0x22 = 4/len, 0x2a = 5/len, 0x30 = 6/varint
    expect(Buffer.from(bytes).toString('hex')).toBe('0a01631201641a0165220166' + '2a0167' + '3001');
    const onlyClaim = MsgSubmitClaimCodec.encode(MsgSubmitClaimCodec.fromPartial({ claimId: 'd' })).finish();
    expect(Buffer.from(onlyClaim).toString('hex')).toBe('120164');
  });

  it('decodes its own bytes and skips the payment fields 7 and 8', () => {
    const encoded = MsgSubmitClaimCodec.encode(MsgSubmitClaimCodec.fromPartial({ claimId: 'x', agentDid: 'did:a' }));
    // field 7 (amount: Coin{denom 'u', amount '1'}) and field 8 (cw20_payment: empty), as another client might send
    const withPayments = Buffer.concat([encoded.finish(), Buffer.from('3a060a0175120131' + '4200', 'hex')]);
    expect(MsgSubmitClaimCodec.decode(withPayments)).toEqual({
      collectionId: '',
      claimId: 'x',
      agentDid: 'did:a',
      agentAddress: '',
      adminAddress: '',
      useIntent: false,
    });
  });

  it('is registered next to the stargate defaults', () => {
    const registry = ledgerRegistry();
    expect(registry.lookupType(msgSubmitClaimTypeUrl)).toBe(MsgSubmitClaimCodec);
    expect(registry.lookupType('/cosmos.bank.v1beta1.MsgSend')).toBeDefined();
  });
});

describe('CosmosAnchor.signBlock (offline)', () => {
  it('puts one MsgSubmitClaim per entry into one tx, with the block in the memo', async () => {
    const anchor = await CosmosAnchor.create(options({ feeGranter: granter }));
    const signed = await anchor.signBlock(block, { accountNumber: 42, sequence: 5 });
    const { body } = decode(signed.txBytes);

    expect(anchor.address).toMatch(/^ixo1[02-9ac-hj-np-z]{38}$/);
    expect(body.memo).toBe(`hearth block 7 root ${root}`);
    expect(body.messages.map((m) => m.typeUrl)).toEqual(Array(3).fill(msgSubmitClaimTypeUrl));
    expect(body.messages.map((m) => MsgSubmitClaimCodec.decode(m.value))).toEqual(
      block.entries.map(({ leafHash }) => ({
        collectionId: 'hearth-collection',
        claimId: leafHash,
        agentDid: 'did:ixo:hearth',
        agentAddress: anchor.address,
        adminAddress: anchor.address,
        useIntent: false,
      })),
    );
  });

  it('signs at the given sequence with the fee, gas and granter the settings imply', async () => {
    const anchor = await CosmosAnchor.create(options({ feeGranter: granter }));
    const signed = await anchor.signBlock(block, { accountNumber: 42, sequence: 5 });
    const { authInfo } = decode(signed.txBytes);

    expect(signed.sequence).toBe(5);
    expect(signed.txHash).toBe(createHash('sha256').update(signed.txBytes).digest('hex').toUpperCase());
    expect(authInfo.signerInfos).toHaveLength(1);
    expect(authInfo.signerInfos[0]!.sequence).toBe(5n);
    expect(authInfo.signerInfos[0]!.modeInfo?.single?.mode).toBe(SignMode.SIGN_MODE_DIRECT);
    expect(authInfo.signerInfos[0]!.publicKey?.typeUrl).toBe('/cosmos.crypto.secp256k1.PubKey');
    expect(PubKey.decode(authInfo.signerInfos[0]!.publicKey!.value).key).toEqual(walletPubkey);
    // 100_000 + 150_000 per message; 550_000 gas at 0.025uixo = 13_750uixo
    expect(authInfo.fee?.gasLimit).toBe(550_000n);
    expect(authInfo.fee?.amount).toEqual([{ denom: 'uixo', amount: '13750' }]);
    expect(authInfo.fee?.granter).toBe(granter);
    expect(authInfo.fee?.payer).toBe('');
  });

  it('leaves fee.granter empty when no granter is configured', async () => {
    // Also: hearth's pino logger fits the anchor's log parameter.
    const anchor = await CosmosAnchor.create(options({ gasPerMessage: 10_000 }), createLogger('silent'));
    const { authInfo } = decode((await anchor.signBlock(block, { accountNumber: 1, sequence: 0 })).txBytes);
    expect(authInfo.fee?.granter).toBe('');
    expect(authInfo.fee?.gasLimit).toBe(130_000n);
  });

  it('produces a signature over chain id and account number that verifies against the wallet key', async () => {
    const anchor = await CosmosAnchor.create(options());
    const { raw } = decode((await anchor.signBlock(block, { accountNumber: 42, sequence: 5 })).txBytes);
    expect(raw.signatures).toHaveLength(1);
    const key = secp256k1PublicKey(walletPubkey);
    const signBytes = (chainId: string, accountNumber: bigint) =>
      makeSignBytes(makeSignDoc(raw.bodyBytes, raw.authInfoBytes, chainId, accountNumber));
    const verifies = (bytes: Uint8Array) =>
      verify('sha256', bytes, { key, dsaEncoding: 'ieee-p1363' }, raw.signatures[0]!);

    expect(verifies(signBytes('ixo-5', 42n))).toBe(true);
    expect(verifies(signBytes('ixo-5', 43n))).toBe(false);
    expect(verifies(signBytes('ixo-4', 42n))).toBe(false);
  });

  it('signs deterministically, so the same block at the same sequence gives the same hash', async () => {
    const anchor = await CosmosAnchor.create(options());
    const first = await anchor.signBlock(block, { accountNumber: 42, sequence: 5 });
    const again = await anchor.signBlock(block, { accountNumber: 42, sequence: 5 });
    const later = await anchor.signBlock(block, { accountNumber: 42, sequence: 6 });
    expect(again.txHash).toBe(first.txHash);
    expect(later.txHash).not.toBe(first.txHash);
  });

  it('refuses a block without entries (a tx without messages is invalid)', async () => {
    const anchor = await CosmosAnchor.create(options());
    await expect(anchor.signBlock({ ...block, entries: [] }, { accountNumber: 1, sequence: 0 })).rejects.toThrow(
      /Block 7 has no entries/,
    );
  });

  it('rejects a bad mnemonic without echoing any of its words', async () => {
    const bad = 'zebraword ' + mnemonic.split(' ').slice(1).join(' ');
    const err: unknown = await CosmosAnchor.create(options({ mnemonic: bad })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/LEDGER_MNEMONIC is not a valid BIP-39 mnemonic/);
    expect((err as Error).message).not.toContain('zebraword');
  });
});
