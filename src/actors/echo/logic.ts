import type { Decision } from '../runtime/types.js';
import type { EchoMessage, EchoState } from './messages.js';

/** An echo's one decision: count, and answer the payload (a `boom` throws, for dead-letter drills). */
export function decideEcho(state: EchoState | undefined, msg: EchoMessage): Decision<EchoState> {
  if (msg.kind === 'boom') throw new Error('boom: this message always fails (dead-letter drill)');
  const echoes = (state?.echoes ?? 0) + 1;
  return { state: { echoes }, reply: { payload: msg.payload, echoes } };
}
