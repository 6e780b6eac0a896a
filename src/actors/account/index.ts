import type { ActorDefinition } from '../runtime/types.js';
import { decide, factsNeeded, view } from './logic.js';
import { accountMessages, type AccountMessage, type AccountState } from './messages.js';

export { withTallies } from './logic.js';
export { accountRef, type AccountMessage, type AccountState, type AccountView } from './messages.js';

export const accountActor: ActorDefinition<AccountState, AccountMessage> = {
  type: 'account',
  messages: accountMessages,
  persistence: { mode: 'commit-before-reply' },
  facts: { needs: factsNeeded },
  // Redemptions add to a supplier's pending CARBON in their own commits (pendingTally).
  tallied: true,
  decide,
  // The balances a party reads (GET /v1/accounts/{did}): totals only, without the saga bookkeeping,
  // and without the pending tallies, which its readers add (conversion-reads.ts).
  view: { table: 'account_views', columns: ['doc'], row: (s) => ({ doc: view(s) }) },
};
