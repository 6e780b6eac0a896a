import type { ActorDefinition } from '../runtime/types.js';
import { decideVoucher, factsNeeded } from './logic.js';
import { voucherMessages, type VoucherMessage, type VoucherState } from './messages.js';

export const voucherActor: ActorDefinition<VoucherState, VoucherMessage> = {
  type: 'voucher',
  messages: voucherMessages,
  persistence: { mode: 'commit-before-reply' },
  facts: { needs: factsNeeded },
  decide: decideVoucher,
  // What reads filter and sort on, and nothing a redemption changes but the status: a row equal
  // to the one before is not written (apply-batch.ts), so most redemptions write none. Reads take
  // the voucher itself from its snapshot (voucher-reads.ts), which is the voucher's document.
  view: {
    table: 'voucher_views',
    columns: ['recipient_did', 'certificate_id', 'status', 'expiry_date', 'created_at'],
    row: (v) => ({
      recipient_did: v.recipientDid,
      certificate_id: v.emissionCertificateId,
      status: v.status,
      expiry_date: v.attributes.expiryDate,
      created_at: v.createdAt,
    }),
  },
};
