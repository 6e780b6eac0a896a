import type { ActorDefinition } from '../runtime/types.js';
import { decideOrder, viewRow } from './logic.js';
import { orderMessages, type OrderMessage, type OrderState } from './messages.js';

export { orderRef, type OrderMessage, type OrderState } from './messages.js';

export const orderActor: ActorDefinition<OrderState, OrderMessage> = {
  type: 'order',
  messages: orderMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideOrder,
  view: { table: 'order_views', columns: ['account', 'kind', 'status', 'created_at', 'doc'], row: viewRow },
};
