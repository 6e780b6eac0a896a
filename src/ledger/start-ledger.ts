import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { Sql } from '../store/db.js';
import type { BlockAnchor } from './anchor-port.js';
import { LedgerWriter } from './ledger-writer.js';

/**
 * The ledger writer of a worker process, on the configured backend. The cosmos module (and with
 * it cosmjs) is loaded only when LEDGER_BACKEND=cosmos. Nothing here contacts the chain: an
 * unreachable or unfunded chain shows in /health while entries wait, it does not stop a worker.
 */
export async function startLedger(
  config: Config,
  deps: { sql: Sql; log: Logger; ownerId: string; clock: () => Date },
): Promise<{ close(): Promise<void> }> {
  let chain: (BlockAnchor & { close(): void }) | undefined;
  if (config.LEDGER_BACKEND === 'cosmos') {
    const { CosmosAnchor } = await import('./cosmos/cosmos-anchor.js');
    const anchor = await CosmosAnchor.create(
      {
        mnemonic: config.LEDGER_MNEMONIC ?? '',
        rpcUrl: config.NETWORK_BLOCKCHAIN_URL,
        restUrl: config.NETWORK_API_URL,
        chainId: config.LEDGER_CHAIN_ID,
        gasPrice: config.LEDGER_GAS_PRICE,
        addressPrefix: config.LEDGER_ADDRESS_PREFIX,
        feeGranter: config.LEDGER_FEE_GRANTER,
        collectionId: config.LEDGER_CLAIM_COLLECTION,
        agentDid: config.LEDGER_AGENT_DID,
        gasPerMessage: config.LEDGER_GAS_PER_MESSAGE,
        confirmTimeoutMs: 60_000,
        pollIntervalMs: 1_000,
      },
      deps.log,
    );
    deps.log.info({ address: anchor.address, chainId: config.LEDGER_CHAIN_ID }, 'ledger signs as this address');
    chain = anchor;
  }
  const actor = new LedgerWriter({
    ...deps,
    chain,
    options: {
      batchSize: config.LEDGER_BATCH_SIZE,
      batchMs: config.LEDGER_BATCH_MS,
      leaseMs: Math.max(5_000, config.LEDGER_BATCH_MS * 10),
    },
  });
  actor.start();
  return {
    async close() {
      await actor.close();
      chain?.close();
    },
  };
}
