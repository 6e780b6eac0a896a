import { createHash } from 'node:crypto';
import { AppError } from '../../errors/index.js';
import type { Supplier } from '../../store/registries/records.js';
import type { Registry } from '../../store/registries/registry.js';
import type { HttpContext } from '../http/context.js';
import { verifyMessageSignature } from './message-signature.js';
import type { Principal } from './principal.js';

/** How far a signature's `created` may be from the server clock, and how long it is remembered. */
const MAX_SKEW_SECONDS = 5 * 60;

/**
 * Strong authentication of suppliers: besides its API key, every supplier request carries an
 * HTTP Message Signature made with the Ed25519 key of the supplier's DID. A signature is
 * accepted once: it is remembered (in Redis, so across gateways) for longer than it could stay
 * fresh.
 */
export class SupplierSignatures {
  constructor(
    private readonly suppliers: Registry<Supplier>,
    /** Remembers a signature's digest for `ttlSeconds`; false when it is remembered already. */
    private readonly firstSeen: (digest: string, ttlSeconds: number) => Promise<boolean>,
    private readonly clock: () => Date,
  ) {}

  async check(ctx: HttpContext, who: Principal): Promise<void> {
    if (who.role !== 'supplier' || !who.did) return;
    const supplier = await this.suppliers.get(who.did);
    // Not a signing fault: the key is fine, the DID has no supplier record (spec 000: 403 for an
    // unauthorized supplier), so integrators do not go looking for a bug in their signing code.
    if (!supplier) {
      throw new AppError(
        'SUPPLIER_NOT_AUTHORIZED',
        `no supplier is registered for ${who.did}, the DID of this key: it is registered with POST /v1/suppliers`,
      );
    }
    const body = await ctx.body();
    const parsed = verifyMessageSignature(
      { method: ctx.method, path: ctx.path, query: ctx.rawQuery, headers: ctx.headers, body },
      { did: who.did, publicKey: supplier.publicKey, now: this.clock(), maxSkewSeconds: MAX_SKEW_SECONDS },
    );
    const digest = createHash('sha256').update(parsed.base).digest('hex');
    if (!(await this.firstSeen(digest, MAX_SKEW_SECONDS * 2 + 60)))
      throw new AppError('SIGNATURE_REPLAYED', 'this signature was already used; sign every request anew');
  }
}
