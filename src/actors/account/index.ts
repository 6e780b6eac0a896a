import type { ActorDefinition } from '../runtime/types.js';
import { decide, factsNeeded, view } from './logic.js';
import { accountMessages, type AccountMessage, type AccountState } from './messages.js';

export { accountRef, type AccountMessage, type AccountState, type AccountView } from './messages.js';

export const accountActor: ActorDefinition<AccountState, AccountMessage> = {
  type: 'account',
  messages: accountMessages,
  persistence: { mode: 'commit-before-reply' },
  facts: { needs: factsNeeded },
  decide,
  // The balances a party reads (GET /v1/accounts/{did}): totals only, without the saga bookkeeping.
  view: { table: 'account_views', columns: ['doc'], row: (s) => ({ doc: view(s) }) },
};
