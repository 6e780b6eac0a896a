import { z } from 'zod';
import type { DeadLetter } from './dead-letters.js';
import type { OperatorAction } from './operator-actions.js';

/** What the operators' routes answer; `satisfies` ties each to the type its store returns. */
export const deadLetterSchema = z.strictObject({
  type: z.string(),
  partition: z.number().int().min(0),
  id: z.string(),
  at: z.iso.datetime(),
  stream: z.string(),
  entryId: z.string(),
  key: z.string(),
  kind: z.string(),
  error: z.string(),
  worker: z.string(),
  /** The message body, JSON, with every field that may hold a secret redacted. */
  body: z.unknown(),
}) satisfies z.ZodType<DeadLetter>;

export const operatorActionSchema = z.strictObject({
  id: z.string(),
  at: z.iso.datetime(),
  keyId: z.string(),
  action: z.string(),
  target: z.string(),
  detail: z.record(z.string(), z.unknown()),
}) satisfies z.ZodType<OperatorAction>;

/** One dead letter of a bulk replay or discard, and what became of it. */
export const letterOutcome = z.strictObject({
  type: z.string(),
  partition: z.number().int(),
  id: z.string(),
  status: z.enum(['replayed', 'discarded', 'gone']),
  /** A replay's new message id in the mailbox. */
  messageId: z.string().optional(),
});
