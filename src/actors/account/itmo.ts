import { z } from 'zod';
import { micro, stepId } from '../../common/money-fields.js';
import { ledgerEntry } from '../ledger-effect.js';
import { reject, type ActorContext, type Decision, type FactWrite } from '../runtime/types.js';
import { itmoCertificateFact, itmoClaimFact } from './facts.js';
import { burnAccount, CARBON, shown } from '../../common/movement.js';

/**
 * ITMO claims and certificates (docs/design/token-conversion.md, steps 4 and 5), held on the
 * implementer's account, so that burning CARBON and recording the claim are one step of one
 * actor: atomic, applied once per id, with no saga.
 * - A **claim** burns CARBON (one of the two events that destroy value): ITMO units, one per
 *   CARBON, with the ledger entry `itmo.claimed` whose inclusion proof is its transfer proof.
 * - A **certificate** request gathers claims for the national registry (registry, serial range,
 *   the mitigation outcome purchase agreement, the fiat received); its claims are committed to it
 *   at once, and it counts only when a regulator approves it (rejected: the claims are free again).
 */
export interface ItmoClaim {
  id: string;
  /** ITMO units, micro-units (one per CARBON burned). */
  units: string;
  status: 'claimed' | 'certifying' | 'certified';
  certificate?: string;
  createdAt: string;
}

export interface ItmoCertificate {
  id: string;
  claims: string[];
  units: string;
  registry: string;
  serialRange: { from: string; to: string };
  agreement: { id: string; buyer: string };
  fiatReceived: { amount: number; currency: string };
  status: 'requested' | 'approved' | 'rejected';
  decision?: { by: string; at: string; reason?: string };
  createdAt: string;
}

export const itmoMessages = [
  z.strictObject({ kind: z.literal('claim-itmo'), id: stepId, amount: micro }),
  z.strictObject({
    kind: z.literal('request-certificate'),
    id: stepId,
    claims: z.array(stepId).min(1).max(500),
    registry: z.string().min(1).max(200),
    serialRange: z.strictObject({ from: z.string().min(1).max(100), to: z.string().min(1).max(100) }),
    agreement: z.strictObject({ id: z.string().min(1).max(200), buyer: z.string().min(1).max(200) }),
    fiatReceived: z.strictObject({ amount: z.number().positive(), currency: z.string().regex(/^[A-Z]{3}$/) }),
  }),
  z.strictObject({
    kind: z.literal('decide-certificate'),
    id: stepId,
    outcome: z.enum(['approved', 'rejected']),
    by: z.string().min(1).max(512),
    reason: z.string().max(500).optional(),
    /**
     * The certificate's claims (the gateway reads them from the certificate): the claims are facts
     * loaded before the decision, so the message names them. Checked against the certificate.
     */
    claims: z.array(stepId).min(1).max(500),
  }),
] as const;

type ItmoMessage = z.infer<(typeof itmoMessages)[number]>;

/** The facts an ITMO step reads: its claim or certificate, and the claims it names. */
export function itmoFactsNeeded(msg: ItmoMessage): string[] {
  if (msg.kind === 'claim-itmo') return [itmoClaimFact(msg.id)];
  return [itmoCertificateFact(msg.id), ...msg.claims.map(itmoClaimFact)];
}

/** The part of an account an ITMO step reads and changes. */
interface Holder {
  balances: Record<string, string>;
}

const claimOf = (ctx: ActorContext, id: string) => ctx.fact(itmoClaimFact(id)) as ItmoClaim | undefined;
const certificateOf = (ctx: ActorContext, id: string) =>
  ctx.fact(itmoCertificateFact(id)) as ItmoCertificate | undefined;

/**
 * An ITMO step on an account. Claims and certificates are facts of the account, not part of its
 * snapshot: an implementer's thousandth claim costs what its first did.
 */
export function decideItmo<S extends Holder>(
  s: S,
  state: S | undefined,
  msg: ItmoMessage,
  ctx: ActorContext,
): Decision<S> {
  const at = ctx.now.toISOString();
  switch (msg.kind) {
    case 'claim-itmo': {
      const known = claimOf(ctx, msg.id);
      if (known) return { state, reply: known };
      const available = BigInt(s.balances[CARBON] ?? '0');
      if (available < BigInt(msg.amount)) {
        return {
          state,
          rejection: reject(
            'INSUFFICIENT_BALANCE',
            `${shown(msg.amount)} CARBON asked, ${shown(available)} available`,
            { asset: CARBON, available: String(available) },
          ),
        };
      }
      const claim: ItmoClaim = { id: msg.id, units: msg.amount, status: 'claimed', createdAt: at };
      const next: S = { ...s, balances: { ...s.balances, [CARBON]: String(available - BigInt(msg.amount)) } };
      const movement = [
        { account: ctx.key, asset: CARBON, amount: `-${msg.amount}` },
        { account: burnAccount(CARBON), asset: CARBON, amount: msg.amount },
      ];
      // `ref` names the entry for its proof (GET /v1/itmo-claims/:id): the ledger indexes it.
      const entry = ledgerEntry('itmo.claimed', { ref: msg.id, account: ctx.key, units: msg.amount, movement, at });
      return { state: next, reply: claim, effects: [entry], facts: [{ id: itmoClaimFact(msg.id), body: claim }] };
    }
    case 'request-certificate': {
      const known = certificateOf(ctx, msg.id);
      if (known) return { state, reply: known };
      const claims = [...new Set(msg.claims)];
      const unusable = claims.filter((id) => claimOf(ctx, id)?.status !== 'claimed');
      if (unusable.length > 0) {
        return {
          state,
          rejection: reject('ITMO_CLAIM_UNAVAILABLE', 'a claim is unknown, or committed to another certificate', {
            claims: unusable,
          }),
        };
      }
      const units = claims.reduce((t, id) => t + BigInt(claimOf(ctx, id)!.units), 0n);
      const { kind: _k, ...fields } = msg;
      const cert: ItmoCertificate = { ...fields, claims, units: String(units), status: 'requested', createdAt: at };
      const entry = ledgerEntry('itmo.certificate-requested', { ref: msg.id, account: ctx.key, ...cert });
      const facts = withClaims(ctx, claims, { status: 'certifying', certificate: msg.id }, cert);
      return { state: s === state ? state : s, reply: cert, effects: [entry], facts };
    }
    case 'decide-certificate': {
      const cert = certificateOf(ctx, msg.id);
      if (!cert) return { state, rejection: reject('ITMO_CERTIFICATE_NOT_FOUND', `no ITMO certificate ${msg.id}`) };
      if (cert.status === msg.outcome) return { state, reply: cert };
      if (cert.status !== 'requested') {
        return { state, rejection: reject('ITMO_CERTIFICATE_DECIDED', `this certificate was ${cert.status} already`) };
      }
      const named = new Set(msg.claims);
      if (cert.claims.some((id) => !named.has(id) || !claimOf(ctx, id))) {
        return {
          state,
          rejection: reject(
            'ITMO_CLAIM_UNAVAILABLE',
            'the claims named are not those of this certificate: read it again',
            {
              claims: cert.claims,
            },
          ),
        };
      }
      const { claims: _c, ...rest } = msg;
      const decision = { by: rest.by, at, ...(rest.reason ? { reason: rest.reason } : {}) };
      const decided: ItmoCertificate = { ...cert, status: msg.outcome, decision };
      const claimStatus =
        msg.outcome === 'approved'
          ? { status: 'certified' as const, certificate: cert.id }
          : { status: 'claimed' as const, certificate: undefined };
      const entry = ledgerEntry(`itmo.certificate-${msg.outcome}`, {
        ref: `${msg.id}:decision`,
        certificate: msg.id,
        account: ctx.key,
        units: cert.units,
        ...decision,
      });
      return { state, reply: decided, effects: [entry], facts: withClaims(ctx, cert.claims, claimStatus, decided) };
    }
  }
}

/** The facts of claims set to `to`, and of the certificate. */
function withClaims(
  ctx: ActorContext,
  ids: readonly string[],
  to: Pick<ItmoClaim, 'status' | 'certificate'>,
  cert: ItmoCertificate,
): FactWrite[] {
  const claims = ids.map((id) => {
    const { certificate: _old, ...claim } = claimOf(ctx, id)!;
    const body: ItmoClaim = { ...claim, status: to.status, ...(to.certificate ? { certificate: to.certificate } : {}) };
    return { id: itmoClaimFact(id), body };
  });
  return [...claims, { id: itmoCertificateFact(cert.id), body: cert }];
}
