import { z } from 'zod';

/**
 * A counter that also checks order: each `add` carries the sender's sequence number for its key,
 * and the state records every gap or reordering it sees. The runtime tests use it to prove
 * per-key order, exactly-once application and fencing.
 */
export const counterMessages = z.discriminatedUnion('kind', [
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
