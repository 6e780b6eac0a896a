import type { ActorDefinition } from '../runtime/types.js';
import { decideVoucher, factsNeeded } from './logic.js';
import { voucherMessages, type VoucherMessage, type VoucherState } from './messages.js';

export const voucherActor: ActorDefinition<VoucherState, VoucherMessage> = {
  type: 'voucher',
  messages: voucherMessages,
  persistence: { mode: 'commit-before-reply' },
  facts: { needs: factsNeeded },
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
