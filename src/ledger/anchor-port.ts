import type { AnchorBlock, AnchorResult, SignedAnchor } from './cosmos/anchor-types.js';

export type { SignedAnchor };

/**
 * What the ledger writer needs from a chain to anchor a block (the cosmos backend implements it).
 * The journal side depends on this port only, so it never loads cosmjs.
 */
export interface BlockAnchor {
  /**
   * Anchors one block exactly once: `stored` is what an earlier attempt signed and saved;
   * `save` is awaited before any newly signed bytes are broadcast.
   */
  anchor(
    block: AnchorBlock,
    stored: SignedAnchor | undefined,
    save: (signed: SignedAnchor) => Promise<void>,
  ): Promise<AnchorResult>;
}
