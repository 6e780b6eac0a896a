import { BroadcastTxError, type StargateClient } from '@cosmjs/stargate';
import { BroadcastRejectedError } from './anchor-errors.js';

/** Cosmos SDK error codes (codespace `sdk`) the anchor reacts to. */
const sdkTxInMempoolCache = 19;
const sdkWrongSequence = 32;

/**
 * What became of one broadcast_tx_sync: the node took the tx (now or earlier), or the signer sequence
 * is not the one the chain expects. Any other rejection is thrown as a {@link BroadcastRejectedError}.
 */
export type BroadcastOutcome =
  | { kind: 'accepted' }
  | { kind: 'already-known' }
  | { kind: 'sequence-mismatch'; expected: number | undefined; log: string };

/** Reads N from the SDK's "account sequence mismatch, expected N, got M: incorrect account sequence". */
function expectedSequenceFromLog(log: string): number | undefined {
  const match = /account sequence mismatch, expected (\d+), got \d+/.exec(log);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/**
 * CometBFT answers a tx it already holds (mempool or cache) with a JSON-RPC error rather than an ABCI
 * code, and cosmjs turns that into a plain Error carrying the JSON; the SDK's code 19 says the same.
 */
function isAlreadyKnown(err: unknown): boolean {
  if (err instanceof BroadcastTxError) return err.codespace === 'sdk' && err.code === sdkTxInMempoolCache;
  return err instanceof Error && /tx already exists in cache|tx already in mempool/i.test(err.message);
}

export async function broadcastOnce(client: StargateClient, txBytes: Uint8Array): Promise<BroadcastOutcome> {
  try {
    await client.broadcastTxSync(txBytes);
    return { kind: 'accepted' };
  } catch (err) {
    if (isAlreadyKnown(err)) return { kind: 'already-known' };
    if (!(err instanceof BroadcastTxError)) throw err;
    const log = err.log ?? '';
    if (err.codespace === 'sdk' && err.code === sdkWrongSequence) {
      return { kind: 'sequence-mismatch', expected: expectedSequenceFromLog(log), log };
    }
    throw new BroadcastRejectedError(err.code, err.codespace, log);
  }
}
