import { z } from 'zod';
import { reject, type ActorDefinition } from '../runtime/types.js';

/**
 * A counter that also checks order: each `add` carries the sender's sequence number for its key,
 * and the state records every gap or reordering it sees. The runtime tests use it to prove
 * per-key order, exactly-once application and fencing.
 */
const counterMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('add'),
      by: z.number().int().min(1).max(1000).default(1),
      seq: z.number().int().min(1).optional(),
    })
    .strict(),
  z.object({ kind: z.literal('get') }).strict(),
  z.object({ kind: z.literal('fail') }).strict(),
]);

export type CounterMessage = z.infer<typeof counterMessages>;

export interface CounterState {
  count: number;
  applied: number;
  lastSeq: number;
  outOfOrder: number;
}

/** What a counter answers: its state. */
export const counterStateSchema = z.strictObject({
  count: z.number().int(),
  applied: z.number().int(),
  lastSeq: z.number().int(),
  outOfOrder: z.number().int(),
}) satisfies z.ZodType<CounterState>;

const zero: CounterState = { count: 0, applied: 0, lastSeq: 0, outOfOrder: 0 };

export const counterActor: ActorDefinition<CounterState, CounterMessage> = {
  type: 'counter',
  messages: counterMessages,
  persistence: { mode: 'commit-before-reply' },
  decide(state, msg) {
    const s = state ?? zero;
    switch (msg.kind) {
      case 'get':
        return { state, reply: s };
      case 'fail':
        return { state, rejection: reject('VALIDATION_FAILED', 'this counter refuses on request') };
      case 'add': {
        const inOrder = msg.seq === undefined || msg.seq === s.lastSeq + 1;
        const next: CounterState = {
          count: s.count + msg.by,
          applied: s.applied + 1,
          lastSeq: msg.seq ?? s.lastSeq,
          outOfOrder: s.outOfOrder + (inOrder ? 0 : 1),
        };
        return {
          state: next,
          reply: next,
          effects: [{ topic: 'counter.added', payload: { by: msg.by, count: next.count } }],
        };
      }
    }
  },
};
