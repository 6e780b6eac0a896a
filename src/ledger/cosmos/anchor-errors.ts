/** The signer has no account on chain yet, so nothing can be signed for it; retrying later is safe. */
export class AccountMissingError extends Error {
  override readonly name = 'AccountMissingError';
  constructor(readonly address: string) {
    super(
      `Account does not exist on chain: ${address} has never received tokens, so it cannot sign. ` +
        `To anchor ledger blocks, fund the address ${address} or configure a fee grant (LEDGER_FEE_GRANTER) to it; ` +
        'blocks wait and are anchored once it exists.',
    );
  }
}

/** broadcast_tx_sync refused the tx for a reason the anchor cannot repair by itself. */
export class BroadcastRejectedError extends Error {
  override readonly name = 'BroadcastRejectedError';
  constructor(
    readonly code: number,
    readonly codespace: string,
    readonly log: string,
  ) {
    super(`Chain rejected the anchor tx: code ${code}, codespace ${codespace || '(none)'}, log: ${log || '(empty)'}`);
  }
}

/** The tx was included in a block but its execution failed; the next attempt signs a new one. */
export class AnchorTxFailedError extends Error {
  override readonly name = 'AnchorTxFailedError';
  constructor(
    readonly txHash: string,
    readonly chainHeight: number,
    readonly code: number,
    readonly log: string,
  ) {
    super(`Anchor tx ${txHash} failed on chain at height ${chainHeight}: code ${code}, log: ${log || '(empty)'}`);
  }
}

/** The tx was accepted but not seen in a block in time; the next attempt looks it up and rebroadcasts it. */
export class AnchorConfirmTimeoutError extends Error {
  override readonly name = 'AnchorConfirmTimeoutError';
  constructor(
    readonly txHash: string,
    timeoutMs: number,
  ) {
    super(`Anchor tx ${txHash} was accepted but not included within ${timeoutMs} ms`);
  }
}
