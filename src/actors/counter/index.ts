import type { ActorDefinition } from '../runtime/types.js';
import { decideCounter } from './logic.js';
import { counterMessages, type CounterMessage, type CounterState } from './messages.js';

export { counterStateSchema, type CounterMessage, type CounterState } from './messages.js';

export const counterActor: ActorDefinition<CounterState, CounterMessage> = {
  type: 'counter',
  messages: counterMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideCounter,
};
