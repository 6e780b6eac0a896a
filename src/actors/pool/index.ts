import type { ActorDefinition } from '../runtime/types.js';
import { decide, factsNeeded, viewRow } from './logic.js';
import { poolMessages, type PoolMessage, type PoolState } from './messages.js';

export type { PoolMessage, PoolState } from './messages.js';

export const poolActor: ActorDefinition<PoolState, PoolMessage> = {
  type: 'pool',
  messages: poolMessages,
  persistence: { mode: 'commit-before-reply' },
  facts: { needs: factsNeeded },
  decide,
  // Its reserves and fee.
  view: { table: 'pool_views', columns: ['doc'], row: viewRow },
};
