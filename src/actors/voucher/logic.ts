import { ledgerEntry } from '../ledger-effect.js';
import { tellEffect } from '../tell-effect.js';
import { CARBON, mintAccount, pendingAccount, voucherAccount } from '../../common/movement.js';
import { recordFact, reject, type Decision } from '../runtime/types.js';
import { redemptionIdFor } from './redemption-id.js';
import { pendingCredit } from '../pending-credit.js';
import type { Redemption, VoucherMessage, VoucherState } from './messages.js';

/** A voucher is expired from the day after its expiry date (UTC), whatever its stored status. */
export function isExpired(v: Pick<VoucherState, 'attributes'>, now: Date): boolean {
  return v.attributes.expiryDate < now.toISOString().slice(0, 10);
}

/** The voucher without its history: what an issue answers and the ledger records. */
function issued(v: VoucherState): Omit<VoucherState, 'redemptionCount' | 'issueRequestId' | 'minted' | 'treasury'> {
  const { redemptionCount: _c, issueRequestId: _i, minted: _m, treasury: _t, ...rest } = v;
  return rest;
}

/**
 * What a voucher remembers beside its snapshot (runtime facts), by id: the redemption each
 * request made, and each refund applied (a refund told again changes nothing). A redemption's id
 * is derived from its voucher and its request ({@link redemptionIdFor}), so a retry with the same
 * Idempotency-Key finds the redemption's own record (read as a fact), however many redemptions
 * came since; redemptions made before ids were derived so were remembered by a fact of the
 * request, which is still read.
 */
export const redeemFact = (requestId: string): string => `redeem:${requestId}`;
const refundFact = (redemptionId: string): string => `refund:${redemptionId}`;
const redemptionFact = (voucherId: string, requestId: string): string =>
  recordFact('redemption', redemptionIdFor(voucherId, requestId));

export function factsNeeded(msg: VoucherMessage, key: string): string[] {
  if (msg.kind === 'redeem') {
    // Older redemptions' request facts were never written for a request id the server made.
    const older = msg.requestId.startsWith('srv:') ? [] : [redeemFact(msg.requestId)];
    return [redemptionFact(key, msg.requestId), ...older];
  }
  if (msg.kind === 'refund') return [refundFact(msg.redemptionId)];
  return [];
}

/** A movement of CARBON between two ledger accounts (docs/ledger.md, movements). */
function carbonMoved(from: string, to: string, micro: number) {
  return [
    { account: from, asset: CARBON, amount: String(-micro) },
    { account: to, asset: CARBON, amount: String(micro) },
  ];
}

export function decideVoucher(
  state: VoucherState | undefined,
  msg: VoucherMessage,
  ctx: { key: string; now: Date; id(n?: number): string; fact(id: string): unknown },
): Decision<VoucherState> {
  switch (msg.kind) {
    case 'get':
      return state
        ? { state, reply: state }
        : { state, rejection: reject('VOUCHER_NOT_FOUND', `no voucher ${ctx.key}`) };

    case 'issue': {
      // A retry of the request that issued it (after a timeout) gets the same answer.
      if (state?.issueRequestId === msg.requestId) {
        const same = state.recipientDid === msg.recipientDid && state.value === msg.value;
        return same
          ? { state, reply: issued(state) }
          : {
              state,
              rejection: reject('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different issue'),
            };
      }
      if (state) {
        return {
          state,
          rejection: reject(
            'CERTIFICATE_ALREADY_USED',
            `certificate ${msg.emissionCertificateId} already backs voucher ${state.id}`,
          ),
        };
      }
      const createdAt = ctx.now.toISOString();
      const voucher: VoucherState = {
        id: ctx.key,
        status: msg.treasury ? 'redeemed' : 'active',
        recipientDid: msg.recipientDid,
        emissionCertificateId: msg.emissionCertificateId,
        value: msg.value,
        remainingBalance: msg.treasury ? 0 : msg.value,
        attributes: msg.attributes,
        createdAt,
        redemptionCount: 0,
        issueRequestId: msg.requestId,
        minted: true,
        ...(msg.treasury ? { treasury: true as const } : {}),
      };
      const reply = issued(voucher);
      // Issuance is one of the two events that create value: the voucher's CARBON is minted, into
      // the voucher, or into the implementer's account for a treasury issuance.
      const holder = msg.treasury ? msg.recipientDid : voucherAccount(voucher.id);
      const movement = carbonMoved(mintAccount(CARBON), holder, voucher.value);
      const entry = ledgerEntry('voucher.issued', { ...reply, movement, at: createdAt });
      if (!msg.treasury) return { state: voucher, reply, effects: [entry] };
      const credit = tellEffect(
        { type: 'account', key: msg.recipientDid },
        { kind: 'credit', id: `${voucher.id}:issued`, asset: CARBON, amount: String(voucher.value) },
      );
      return { state: voucher, reply, effects: [entry, credit] };
    }

    case 'revoke': {
      if (!state) return { state, rejection: reject('VOUCHER_NOT_FOUND', `no voucher ${ctx.key}`) };
      if (state.status === 'revoked') return { state, reply: state };
      if (state.status !== 'active') {
        return { state, rejection: reject('VOUCHER_NOT_ACTIVE', `voucher ${state.id} is ${state.status}`) };
      }
      const next: VoucherState = { ...state, status: 'revoked' };
      const at = ctx.now.toISOString();
      // What nobody can spend any more goes back where it came from: the issuance is reversed for
      // the unspent CARBON (docs/ledger.md, "Revoked vouchers").
      const unspent = state.minted && state.remainingBalance > 0;
      const movement = unspent
        ? carbonMoved(voucherAccount(state.id), mintAccount(CARBON), state.remainingBalance)
        : [];
      return {
        state: next,
        reply: next,
        effects: [
          ledgerEntry('voucher.revoked', { id: state.id, reason: msg.reason, at, ...(unspent ? { movement } : {}) }),
        ],
      };
    }

    case 'redeem': {
      const earlier = (ctx.fact(redemptionFact(ctx.key, msg.requestId)) ?? ctx.fact(redeemFact(msg.requestId))) as
        Redemption | undefined;
      if (earlier) {
        const same =
          earlier.supplierDid === msg.supplierDid &&
          earlier.amount === msg.amount &&
          earlier.productId === msg.productId;
        return same
          ? { state, reply: earlier }
          : {
              state,
              rejection: reject('IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different redemption'),
            };
      }
      if (!state) return { state, rejection: reject('VOUCHER_NOT_FOUND', `no voucher ${ctx.key}`) };
      if (state.status !== 'active') {
        return { state, rejection: reject('VOUCHER_NOT_ACTIVE', `voucher ${state.id} is ${state.status}`) };
      }
      // Rule 1, "active": not before the day it was issued for (an issue may be dated ahead).
      if (state.attributes.issuanceDate > ctx.now.toISOString().slice(0, 10)) {
        return {
          state,
          rejection: reject(
            'VOUCHER_NOT_ACTIVE',
            `voucher ${state.id} is valid from ${state.attributes.issuanceDate}, its issuance date`,
          ),
        };
      }
      if (isExpired(state, ctx.now)) {
        return {
          state,
          rejection: reject('VOUCHER_EXPIRED', `voucher ${state.id} expired on ${state.attributes.expiryDate}`),
        };
      }
      if (msg.amount > state.remainingBalance) {
        return {
          state,
          rejection: reject('INSUFFICIENT_BALANCE', 'the amount exceeds the available balance', {
            remainingBalance: state.remainingBalance / 1e6,
            amount: msg.amount / 1e6,
          }),
        };
      }
      const remainingBalance = state.remainingBalance - msg.amount;
      const redemption: Redemption = {
        id: redemptionIdFor(ctx.key, msg.requestId),
        requestId: msg.requestId,
        voucherId: state.id,
        supplierDid: msg.supplierDid,
        productId: msg.productId,
        amount: msg.amount,
        remainingBalance,
        createdAt: ctx.now.toISOString(),
        ...(state.minted ? { tallied: true as const } : {}),
      };
      const next: VoucherState = {
        ...state,
        remainingBalance,
        status: remainingBalance === 0 ? 'redeemed' : 'active',
        redemptionCount: state.redemptionCount + 1,
      };
      const { requestId: _req, tallied: _tallied, ...record } = redemption;
      const credit = state.minted ? pendingCredit(msg.supplierDid, CARBON, String(msg.amount)) : undefined;
      return {
        state: next,
        reply: redemption,
        effects: [
          ledgerEntry('voucher.redeemed', {
            ...record,
            // The CARBON goes to the supplier, pending until a regulator accepts its claim.
            ...(state.minted
              ? { movement: carbonMoved(voucherAccount(state.id), pendingAccount(msg.supplierDid), msg.amount) }
              : {}),
            at: redemption.createdAt,
          }),
        ],
        // Its record is also what a retry of its request finds (redemptionFact): nothing else to keep.
        records: [{ kind: 'redemption', id: redemption.id, body: redemption }],
        // Its supplier's account counts it pending from this commit on, with no step of its own.
        tallies: credit ? [credit] : [],
      };
    }

    case 'refund': {
      if (!state) return { state, rejection: reject('VOUCHER_NOT_FOUND', `no voucher ${ctx.key}`) };
      if (ctx.fact(refundFact(msg.redemptionId)) !== undefined) return { state, reply: state };
      const refunded = [{ id: refundFact(msg.redemptionId), body: { amount: msg.amount } }];
      if (state.status === 'revoked') {
        // Nobody can spend it here: the CARBON the claim's rejection moved back to this voucher
        // goes on to where the revocation sent the rest (docs/ledger.md, "Revoked vouchers").
        const movement = carbonMoved(voucherAccount(state.id), mintAccount(CARBON), msg.amount);
        const at = ctx.now.toISOString();
        const entry = ledgerEntry('voucher.refund-returned', {
          id: state.id,
          redemptionId: msg.redemptionId,
          movement,
          at,
        });
        return { state, reply: state, facts: refunded, effects: state.minted ? [entry] : [] };
      }
      // A fully redeemed voucher is active again.
      const next: VoucherState = {
        ...state,
        remainingBalance: state.remainingBalance + msg.amount,
        status: state.status === 'redeemed' ? 'active' : state.status,
      };
      return { state: next, reply: next, facts: refunded };
    }
  }
}
