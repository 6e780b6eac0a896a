import type { ActorDefinition } from '../runtime/types.js';
import { decideEcho } from './logic.js';
import { echoMessages, type EchoMessage, type EchoState } from './messages.js';

export { echoReply, type EchoMessage, type EchoState } from './messages.js';

export const echoActor: ActorDefinition<EchoState, EchoMessage> = {
  type: 'echo',
  messages: echoMessages,
  persistence: { mode: 'commit-before-reply' },
  decide: decideEcho,
};
