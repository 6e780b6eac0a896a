import { setTimeout as sleep } from 'node:timers/promises';
import type { StargateClient } from '@cosmjs/stargate';
import { AnchorConfirmTimeoutError, AnchorTxFailedError, BroadcastRejectedError } from './anchor-errors.js';
import type {
  AnchorBlock,
  AnchorLog,
  AnchorResult,
  CosmosAnchorOptions,
  SignedAnchor,
  SignerAccount,
} from './anchor-types.js';
import { BlockSigner } from './block-signer.js';
import { broadcastOnce, type BroadcastOutcome } from './broadcast-outcome.js';
import { publicReason } from '../public-reason.js';
import { ChainConnection } from './chain-connection.js';

export * from './anchor-errors.js';
export type * from './anchor-types.js';

/** Re-signs after a sequence mismatch at most this often per call; more means someone else is racing us. */
const maxSequenceRetries = 3;

const silent: AnchorLog = { info: () => undefined, warn: () => undefined };

type SaveSigned = (signed: SignedAnchor) => Promise<void>;

/**
 * Anchors journal blocks on a Cosmos chain, one tx per block, exactly once: bytes are persisted by
 * the caller before they are broadcast, a restart looks them up and rebroadcasts the same bytes, and
 * new bytes are signed only when the old ones provably cannot land (sequence used up, or failed).
 */
export class CosmosAnchor {
  /** The signer's account as this process believes it is; dropped whenever the chain disagrees. */
  private account: SignerAccount | undefined;
  private chainIdChecked = false;
  /** Calls run one at a time: they share the tracked sequence. */
  private tail: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly opts: CosmosAnchorOptions,
    private readonly signer: BlockSigner,
    private readonly chain: ChainConnection,
    private readonly log: AnchorLog,
  ) {}

  /** Derives the wallet; does not contact the chain. */
  static async create(opts: CosmosAnchorOptions, log: AnchorLog = silent): Promise<CosmosAnchor> {
    const signer = await BlockSigner.create(opts.mnemonic, opts.addressPrefix, opts);
    return new CosmosAnchor(opts, signer, new ChainConnection(opts.rpcUrl), log);
  }

  get address(): string {
    return this.signer.address;
  }

  /** Offline signing at an explicit account number and sequence. */
  signBlock(block: AnchorBlock, signer: SignerAccount): Promise<SignedAnchor> {
    return this.signer.sign(block, signer);
  }

  anchor(block: AnchorBlock, stored: SignedAnchor | undefined, save: SaveSigned): Promise<AnchorResult> {
    const run = this.tail.then(
      () => this.anchorOnce(block, stored, save),
      () => this.anchorOnce(block, stored, save),
    );
    // The caller gets run's failure; the tail only keeps the next anchor after this one.
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Chain reachability for /health. */
  status(): Promise<{ chainId: string; latestHeight: number }> {
    return this.chain.status();
  }

  close(): void {
    this.chain.close();
  }

  private async anchorOnce(
    block: AnchorBlock,
    stored: SignedAnchor | undefined,
    save: SaveSigned,
  ): Promise<AnchorResult> {
    const client = await this.chain.client();
    await this.checkChainId();
    let reusable = stored;
    if (stored) {
      const found = await client.getTx(stored.txHash);
      if (found?.code === 0) return { txHash: found.hash, chainHeight: found.height };
      if (found) {
        // It landed and failed: its sequence is used up and the same bytes would fail again.
        this.log.warn(
          { block: block.height, txHash: found.hash, code: found.code },
          'stored anchor tx failed; re-signing',
        );
        this.account = undefined;
        reusable = undefined;
      }
    }
    const accepted = await this.broadcastUntilAccepted(client, block, reusable, save);
    return this.awaitInclusion(client, block, accepted);
  }

  private async broadcastUntilAccepted(
    client: StargateClient,
    block: AnchorBlock,
    stored: SignedAnchor | undefined,
    save: SaveSigned,
  ): Promise<SignedAnchor> {
    const account = await this.trackedAccount();
    let candidate = stored ?? (await this.signAndSave(block, account, save));
    for (let retry = 0; ; retry++) {
      let outcome: BroadcastOutcome;
      try {
        outcome = await broadcastOnce(client, candidate.txBytes);
      } catch (err) {
        const fresh = candidate === stored ? await this.resignRefused(block, stored, account, err) : undefined;
        if (!fresh) throw err;
        await save(fresh);
        candidate = fresh;
        continue;
      }
      if (outcome.kind !== 'sequence-mismatch') {
        this.log.info(
          { block: block.height, txHash: candidate.txHash, sequence: candidate.sequence, outcome: outcome.kind },
          'anchor tx broadcast',
        );
        this.account = { accountNumber: account.accountNumber, sequence: candidate.sequence + 1 };
        return candidate;
      }
      if (retry === maxSequenceRetries) {
        throw new Error(`Anchor of block ${block.height} gave up after ${retry} sequence mismatches: ${outcome.log}`);
      }
      // A stored tx may have landed between the lookup and this broadcast (the mismatch would then be
      // its own doing); signing again then would anchor the block twice.
      if (candidate === stored && (await client.getTx(candidate.txHash))) {
        this.account = undefined;
        return candidate;
      }
      this.log.warn(
        { block: block.height, signedAt: candidate.sequence, expected: outcome.expected },
        'account sequence mismatch (another signer used the account, or a tx was dropped); re-signing',
      );
      account.sequence = outcome.expected ?? (await this.refreshAccount()).sequence;
      candidate = await this.signAndSave(block, account, save);
    }
  }

  /**
   * Stored bytes the node refuses outright (say, signed without the fee granter the operator has
   * since configured) would be refused forever. Only one tx per sequence can ever land, so signing
   * again at the stored sequence with today's settings cannot anchor the block twice.
   */
  private async resignRefused(
    block: AnchorBlock,
    stored: SignedAnchor,
    account: SignerAccount,
    err: unknown,
  ): Promise<SignedAnchor | undefined> {
    if (!(err instanceof BroadcastRejectedError)) return undefined;
    const fresh = await this.signer.sign(block, { accountNumber: account.accountNumber, sequence: stored.sequence });
    // Unchanged settings sign to the very same bytes, which would be refused the same way.
    if (fresh.txHash === stored.txHash) return undefined;
    this.log.warn(
      { block: block.height, sequence: stored.sequence, code: err.code, log: err.log },
      'stored anchor tx refused; re-signed at its sequence with the current settings',
    );
    return fresh;
  }

  private async signAndSave(block: AnchorBlock, account: SignerAccount, save: SaveSigned): Promise<SignedAnchor> {
    const signed = await this.signer.sign(block, account);
    // Persisted before any broadcast: after a crash the caller hands these bytes back, never new ones.
    await save(signed);
    return signed;
  }

  private async awaitInclusion(client: StargateClient, block: AnchorBlock, tx: SignedAnchor): Promise<AnchorResult> {
    const deadline = Date.now() + this.opts.confirmTimeoutMs;
    for (;;) {
      const found = await client.getTx(tx.txHash);
      if (found && found.code !== 0) throw new AnchorTxFailedError(found.hash, found.height, found.code, found.rawLog);
      if (found) {
        this.log.info({ block: block.height, txHash: found.hash, chainHeight: found.height }, 'block anchored');
        return { txHash: found.hash, chainHeight: found.height };
      }
      if (Date.now() >= deadline) throw new AnchorConfirmTimeoutError(tx.txHash, this.opts.confirmTimeoutMs);
      await sleep(this.opts.pollIntervalMs);
    }
  }

  /** A copy of the tracked account, fetched from the chain when unknown. */
  private async trackedAccount(): Promise<SignerAccount> {
    return { ...(this.account ?? (await this.refreshAccount())) };
  }

  private async refreshAccount(): Promise<SignerAccount> {
    this.account = await this.chain.signerAccount(this.address);
    return this.account;
  }

  /** Signatures cover the chain id, so a wrong LEDGER_CHAIN_ID would only show as "unauthorized". */
  private async checkChainId(): Promise<void> {
    if (this.chainIdChecked) return;
    const { chainId } = await this.chain.status();
    if (chainId !== this.opts.chainId) {
      throw new Error(
        `The RPC at ${publicReason(this.opts.rpcUrl)} serves chain ${chainId}, but LEDGER_CHAIN_ID is ${this.opts.chainId}`,
      );
    }
    this.chainIdChecked = true;
  }
}
