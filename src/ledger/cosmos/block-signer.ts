import { createHash } from 'node:crypto';
import { DirectSecp256k1HdWallet, type EncodeObject } from '@cosmjs/proto-signing';
import { calculateFee, GasPrice, SigningStargateClient, type StdFee } from '@cosmjs/stargate';
import { TxRaw } from 'cosmjs-types/cosmos/tx/v1beta1/tx';
import type { AnchorBlock, CosmosAnchorOptions, SignedAnchor, SignerAccount } from './anchor-types.js';
import { ledgerRegistry, msgSubmitClaimTypeUrl, type MsgSubmitClaim } from './ixo-messages.js';

/** Base gas of a tx (signature checks, fee deduction) before its messages. */
const baseGas = 100_000;

export type SigningSettings = Pick<
  CosmosAnchorOptions,
  'chainId' | 'gasPrice' | 'feeGranter' | 'collectionId' | 'agentDid' | 'gasPerMessage'
>;

/** The memo names the journal block, so an explorer shows which block a tx anchors. */
function anchorMemo(block: AnchorBlock): string {
  return `hearth block ${block.height} root ${block.merkleRoot}`;
}

function anchorGasLimit(messages: number, gasPerMessage: number): number {
  return baseGas + gasPerMessage * messages;
}

/** The tx hash CometBFT indexes: uppercase hex sha256 of the raw tx bytes. */
function txHashOf(txBytes: Uint8Array): string {
  return createHash('sha256').update(txBytes).digest('hex').toUpperCase();
}

/** One claim per journal entry; the signer is both agent and admin, as it submits on its own behalf. */
function claimMessages(block: AnchorBlock, settings: SigningSettings, signerAddress: string): EncodeObject[] {
  return block.entries.map(({ leafHash }) => {
    const value: MsgSubmitClaim = {
      collectionId: settings.collectionId,
      claimId: leafHash,
      agentDid: settings.agentDid,
      agentAddress: signerAddress,
      adminAddress: signerAddress,
      useIntent: false,
    };
    return { typeUrl: msgSubmitClaimTypeUrl, value };
  });
}

/**
 * Signs anchor txs without touching the network: the account number and sequence come from the
 * caller, which tracks them, so signing again after a crash or a sequence mismatch is deterministic.
 */
export class BlockSigner {
  private constructor(
    readonly address: string,
    private readonly client: SigningStargateClient,
    private readonly settings: SigningSettings,
    private readonly gasPrice: GasPrice,
  ) {}

  static async create(mnemonic: string, addressPrefix: string, settings: SigningSettings): Promise<BlockSigner> {
    // Parse the gas price first: a typo in LEDGER_GAS_PRICE should fail at startup, not at the first block.
    const gasPrice = GasPrice.fromString(settings.gasPrice);
    let wallet: DirectSecp256k1HdWallet;
    try {
      wallet = await DirectSecp256k1HdWallet.fromMnemonic(mnemonic, { prefix: addressPrefix });
    } catch (err) {
      // cosmjs names the offending word ("Unknown word: …"); that is part of the secret, so drop it.
      const reason = err instanceof Error && err.message.startsWith('Unknown word') ? 'unknown word' : String(err);
      throw new Error(`LEDGER_MNEMONIC is not a valid BIP-39 mnemonic (${reason})`);
    }
    const [account] = await wallet.getAccounts();
    if (!account) throw new Error('LEDGER_MNEMONIC derived no account');
    const client = await SigningStargateClient.offline(wallet, { registry: ledgerRegistry() });
    return new BlockSigner(account.address, client, settings, gasPrice);
  }

  fee(messages: number): StdFee {
    const fee = calculateFee(anchorGasLimit(messages, this.settings.gasPerMessage), this.gasPrice);
    return this.settings.feeGranter ? { ...fee, granter: this.settings.feeGranter } : fee;
  }

  async sign(block: AnchorBlock, signer: SignerAccount): Promise<SignedAnchor> {
    // A tx without messages is invalid on every Cosmos chain; an empty block has nothing to anchor.
    if (block.entries.length === 0) throw new Error(`Block ${block.height} has no entries to anchor`);
    const messages = claimMessages(block, this.settings, this.address);
    const txRaw = await this.client.sign(this.address, messages, this.fee(messages.length), anchorMemo(block), {
      accountNumber: BigInt(signer.accountNumber),
      sequence: signer.sequence,
      chainId: this.settings.chainId,
    });
    const txBytes = TxRaw.encode(txRaw).finish();
    return { txBytes, txHash: txHashOf(txBytes), sequence: signer.sequence };
  }
}
