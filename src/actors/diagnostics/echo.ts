import { z } from 'zod';
import type { ActorDefinition } from '../runtime/types.js';

/**
 * Replies with what it was sent. It keeps a count per key so that every ask goes through a real
 * snapshot commit: the benchmark's echo measures the runtime, not a shortcut around Postgres.
 */
const echoMessages = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('echo'), payload: z.unknown() }).strict(),
  z.object({ kind: z.literal('boom') }).strict(),
]);

/** What an echo answers: the payload, and how many echoes its key has made. */
export const echoReply = z.strictObject({ payload: z.unknown(), echoes: z.number().int().min(1) });

export type EchoMessage = z.infer<typeof echoMessages>;
export interface EchoState {
  echoes: number;
}

export const echoActor: ActorDefinition<EchoState, EchoMessage> = {
  type: 'echo',
  messages: echoMessages,
  persistence: { mode: 'commit-before-reply' },
  decide(state, msg) {
    if (msg.kind === 'boom') throw new Error('boom: this message always fails (dead-letter drill)');
    const echoes = (state?.echoes ?? 0) + 1;
    return { state: { echoes }, reply: { payload: msg.payload, echoes } };
  },
};
