import { z } from 'zod';

/**
 * Replies with what it was sent. It keeps a count per key so that every ask goes through a real
 * snapshot commit: the benchmark's echo measures the runtime, not a shortcut around Postgres.
 */
export const echoMessages = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('echo'), payload: z.unknown() }).strict(),
  z.object({ kind: z.literal('boom') }).strict(),
]);

/** What an echo answers: the payload, and how many echoes its key has made. */
export const echoReply = z.strictObject({ payload: z.unknown(), echoes: z.number().int().min(1) });

export type EchoMessage = z.infer<typeof echoMessages>;
export interface EchoState {
  echoes: number;
}
