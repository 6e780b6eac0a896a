import type { ActorDefinition } from '../runtime/types.js';
import { decideClaim } from './logic.js';
import { claimMessages, type ClaimMessage, type ClaimState } from './messages.js';

export { claimRef } from './messages.js';

export const claimActor: ActorDefinition<ClaimState, ClaimMessage> = {
  type: 'claim',
  messages: claimMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideClaim,
  view: {
    table: 'claim_views',
    columns: ['claim_id', 'supplier_did', 'voucher_id', 'created_at', 'doc'],
    row: (c) => ({
      claim_id: c.id,
      supplier_did: c.supplierDid,
      voucher_id: c.voucherId,
      created_at: c.createdAt,
      doc: c,
    }),
  },
};
