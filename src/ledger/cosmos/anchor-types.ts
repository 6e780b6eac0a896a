/** Settings of the cosmos ledger backend; each field names the environment variable it comes from. */
export interface CosmosAnchorOptions {
  /** LEDGER_MNEMONIC. Never logged. */
  mnemonic: string;
  /** NETWORK_BLOCKCHAIN_URL: CometBFT JSON-RPC, e.g. https://impacthub.ixo.world/rpc/ */
  rpcUrl: string;
  /** NETWORK_API_URL: kept for operators and docs; the protocol here needs only RPC. */
  restUrl: string;
  /** LEDGER_CHAIN_ID, e.g. 'ixo-5'. Signed into every tx, so a wrong one is rejected by the chain. */
  chainId: string;
  /** LEDGER_GAS_PRICE, e.g. '0.025uixo'. */
  gasPrice: string;
  /** LEDGER_ADDRESS_PREFIX, e.g. 'ixo'. */
  addressPrefix: string;
  /** LEDGER_FEE_GRANTER: bech32 address that pays the fee (fee.granter); unset means the signer pays. */
  feeGranter?: string;
  /** LEDGER_CLAIM_COLLECTION: collection_id of each MsgSubmitClaim. */
  collectionId: string;
  /** LEDGER_AGENT_DID: agent_did of each MsgSubmitClaim. */
  agentDid: string;
  /** Gas limit = 100_000 + gasPerMessage * messages. */
  gasPerMessage: number;
  /** How long to poll tx_search for inclusion after a broadcast was accepted. */
  confirmTimeoutMs: number;
  pollIntervalMs: number;
}

/** One journal block: anchored as one tx with one MsgSubmitClaim per entry. */
export interface AnchorBlock {
  height: number;
  merkleRoot: string;
  entries: Array<{ leafHash: string }>;
}

/** A signed tx as persisted by the caller, so a restart rebroadcasts these exact bytes. */
export interface SignedAnchor {
  txBytes: Uint8Array;
  /** Uppercase hex sha256 of txBytes: the hash CometBFT indexes the tx under. */
  txHash: string;
  /** The signer sequence the tx was signed at. */
  sequence: number;
}

export interface AnchorResult {
  txHash: string;
  /** Chain height the tx was included at. */
  chainHeight: number;
}

/** What signing needs to know about the signer's account on chain. */
export interface SignerAccount {
  accountNumber: number;
  sequence: number;
}

/** The slice of a pino logger the anchor uses. */
export interface AnchorLog {
  info(o: object, m: string): void;
  warn(o: object, m: string): void;
}
