import { z } from 'zod';
import { micro, stepId } from './message-fields.js';
import { ledgerEntry } from '../actors/ledger-effect.js';
import { reject, type Decision } from '../actors/runtime/types.js';
import { burnAccount, CARBON, shown } from './movement.js';

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

export interface ItmoHoldings {
  claims: Record<string, ItmoClaim>;
  certificates: Record<string, ItmoCertificate>;
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
  }),
] as const;

type ItmoMessage = z.infer<(typeof itmoMessages)[number]>;

/** The part of an account an ITMO step reads and changes. */
interface Holder {
  balances: Record<string, string>;
  itmo?: ItmoHoldings;
}

const none: ItmoHoldings = { claims: {}, certificates: {} };

export function decideItmo<S extends Holder>(
  s: S,
  state: S | undefined,
  msg: ItmoMessage,
  ctx: { key: string; now: Date },
): Decision<S> {
  const itmo = s.itmo ?? none;
  const at = ctx.now.toISOString();
  switch (msg.kind) {
    case 'claim-itmo': {
      const known = itmo.claims[msg.id];
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
      const next: S = {
        ...s,
        balances: { ...s.balances, [CARBON]: String(available - BigInt(msg.amount)) },
        itmo: { ...itmo, claims: { ...itmo.claims, [msg.id]: claim } },
      };
      const movement = [
        { account: ctx.key, asset: CARBON, amount: `-${msg.amount}` },
        { account: burnAccount(CARBON), asset: CARBON, amount: msg.amount },
      ];
      // `ref` names the entry for its proof (GET /v1/itmo-claims/:id): the ledger indexes it.
      const entry = ledgerEntry('itmo.claimed', { ref: msg.id, account: ctx.key, units: msg.amount, movement, at });
      return { state: next, reply: claim, effects: [entry] };
    }
    case 'request-certificate': {
      const known = itmo.certificates[msg.id];
      if (known) return { state, reply: known };
      const claims = [...new Set(msg.claims)];
      const unusable = claims.filter((id) => itmo.claims[id]?.status !== 'claimed');
      if (unusable.length > 0) {
        return {
          state,
          rejection: reject('ITMO_CLAIM_UNAVAILABLE', 'a claim is unknown, or committed to another certificate', {
            claims: unusable,
          }),
        };
      }
      const units = claims.reduce((t, id) => t + BigInt(itmo.claims[id]!.units), 0n);
      const { kind: _k, ...fields } = msg;
      const cert: ItmoCertificate = { ...fields, claims, units: String(units), status: 'requested', createdAt: at };
      const next = withClaims(s, itmo, claims, { status: 'certifying', certificate: msg.id }, cert);
      const entry = ledgerEntry('itmo.certificate-requested', { ref: msg.id, account: ctx.key, ...cert });
      return { state: next, reply: cert, effects: [entry] };
    }
    case 'decide-certificate': {
      const cert = itmo.certificates[msg.id];
      if (!cert) return { state, rejection: reject('ITMO_CERTIFICATE_NOT_FOUND', `no ITMO certificate ${msg.id}`) };
      if (cert.status === msg.outcome) return { state, reply: cert };
      if (cert.status !== 'requested') {
        return { state, rejection: reject('ITMO_CERTIFICATE_DECIDED', `this certificate was ${cert.status} already`) };
      }
      const decision = { by: msg.by, at, ...(msg.reason ? { reason: msg.reason } : {}) };
      const decided: ItmoCertificate = { ...cert, status: msg.outcome, decision };
      const claimStatus =
        msg.outcome === 'approved'
          ? { status: 'certified' as const, certificate: cert.id }
          : { status: 'claimed' as const, certificate: undefined };
      const next = withClaims(s, itmo, cert.claims, claimStatus, decided);
      const entry = ledgerEntry(`itmo.certificate-${msg.outcome}`, {
        ref: `${msg.id}:decision`,
        certificate: msg.id,
        account: ctx.key,
        units: cert.units,
        ...decision,
      });
      return { state: next, reply: decided, effects: [entry] };
    }
  }
}

/** The account with its claims set to `to` and the certificate stored. */
function withClaims<S extends Holder>(
  s: S,
  itmo: ItmoHoldings,
  ids: readonly string[],
  to: Pick<ItmoClaim, 'status' | 'certificate'>,
  cert: ItmoCertificate,
): S {
  const claims = { ...itmo.claims };
  for (const id of ids) {
    const { certificate: _old, ...claim } = claims[id]!;
    claims[id] = { ...claim, status: to.status, ...(to.certificate ? { certificate: to.certificate } : {}) };
  }
  return { ...s, itmo: { claims, certificates: { ...itmo.certificates, [cert.id]: cert } } };
}
