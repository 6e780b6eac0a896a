import type { ActorDefinition } from '../runtime/types.js';
import { decideConversion, viewRow } from './logic.js';
import { conversionMessages, type ConversionMessage, type ConversionState } from './messages.js';

export { conversionRef, type ConversionMessage, type ConversionState } from './messages.js';

export const conversionActor: ActorDefinition<ConversionState, ConversionMessage> = {
  type: 'conversion',
  messages: conversionMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideConversion,
  view: { table: 'conversion_views', columns: ['account', 'status', 'created_at', 'running', 'doc'], row: viewRow },
};
