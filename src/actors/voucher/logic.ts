import { ledgerEntry } from '../ledger-effect.js';
import { tellEffect } from '../tell-effect.js';
import { CARBON, mintAccount, pendingAccount, pendingCreditId, voucherAccount } from '../../conversion/movement.js';
import { reject, type ActorDefinition, type Decision } from '../runtime/types.js';
import {
  RECENT_REDEMPTIONS,
  voucherMessages,
  type Redemption,
  type VoucherMessage,
  type VoucherState,
} from './messages.js';

/** A voucher is expired from the day after its expiry date (UTC), whatever its stored status. */
export function isExpired(v: Pick<VoucherState, 'attributes'>, now: Date): boolean {
  return v.attributes.expiryDate < now.toISOString().slice(0, 10);
}

/** The voucher without its history: what an issue answers and the ledger records. */
function issued(
  v: VoucherState,
): Omit<VoucherState, 'recent' | 'redemptionCount' | 'issueRequestId' | 'minted' | 'refunded' | 'treasury'> {
  const { recent: _r, redemptionCount: _c, issueRequestId: _i, minted: _m, refunded: _f, treasury: _t, ...rest } = v;
  return rest;
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
  ctx: { key: string; now: Date; id(n?: number): string },
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
        recent: [],
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
      return {
        state: next,
        reply: next,
        effects: [ledgerEntry('voucher.revoked', { id: state.id, reason: msg.reason, at })],
      };
    }

    case 'redeem': {
      const earlier = state?.recent.find((r) => r.requestId === msg.requestId);
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
        id: ctx.id(0),
        requestId: msg.requestId,
        voucherId: state.id,
        supplierDid: msg.supplierDid,
        productId: msg.productId,
        amount: msg.amount,
        remainingBalance,
        createdAt: ctx.now.toISOString(),
      };
      const next: VoucherState = {
        ...state,
        remainingBalance,
        status: remainingBalance === 0 ? 'redeemed' : 'active',
        redemptionCount: state.redemptionCount + 1,
        recent: [...state.recent, redemption].slice(-RECENT_REDEMPTIONS),
      };
      const { requestId: _req, ...record } = redemption;
      return {
        state: next,
        reply: redemption,
        effects: state.minted
          ? [
              // The CARBON goes to the supplier, pending until a regulator accepts its claim.
              ledgerEntry('voucher.redeemed', {
                ...record,
                movement: carbonMoved(voucherAccount(state.id), pendingAccount(msg.supplierDid), msg.amount),
                at: redemption.createdAt,
              }),
              tellEffect(
                { type: 'account', key: msg.supplierDid },
                {
                  kind: 'credit-pending',
                  id: pendingCreditId(redemption.id),
                  asset: CARBON,
                  amount: String(msg.amount),
                },
              ),
            ]
          : [ledgerEntry('voucher.redeemed', { ...record, at: redemption.createdAt })],
        records: [{ kind: 'redemption', id: redemption.id, body: redemption }],
      };
    }

    case 'refund': {
      if (!state) return { state, rejection: reject('VOUCHER_NOT_FOUND', `no voucher ${ctx.key}`) };
      if (state.refunded?.includes(msg.redemptionId)) return { state, reply: state };
      const remainingBalance = state.remainingBalance + msg.amount;
      // A fully redeemed voucher is active again; a revoked one stays revoked (its CARBON with it).
      const next: VoucherState = {
        ...state,
        remainingBalance,
        status: state.status === 'redeemed' ? 'active' : state.status,
        refunded: [...(state.refunded ?? []), msg.redemptionId].slice(-RECENT_REDEMPTIONS),
      };
      return { state: next, reply: next };
    }
  }
}

export const voucherActor: ActorDefinition<VoucherState, VoucherMessage> = {
  type: 'voucher',
  messages: voucherMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideVoucher,
  view: {
    table: 'voucher_views',
    columns: ['recipient_did', 'certificate_id', 'status', 'expiry_date', 'created_at', 'doc'],
    row: (v) => ({
      recipient_did: v.recipientDid,
      certificate_id: v.emissionCertificateId,
      status: v.status,
      expiry_date: v.attributes.expiryDate,
      created_at: v.createdAt,
      doc: v,
    }),
  },
};
