import { z } from 'zod';
import { actorRef } from '../runtime/actor-ref.js';
import type { CloseReply, HopReply } from './state.js';

const audience = z.enum(['household', 'supplier', 'unregistered']);

/** What the gateway sends a session actor (keyed by the aggregator's sessionId). */
export const ussdMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('hop'),
      /** The cumulative text, sealed (see sealed-text.ts): it carries PIN digits. */
      sealedText: z.string().max(8_000),
      phoneNumber: z.string().min(1).max(32),
      serviceCode: z.string().min(1).max(32),
      /** Who the phone belongs to and whether it has a PIN: read when the session starts. */
      audience,
      pinSet: z.boolean(),
      /** The language the phone chose in an earlier session, if any (used when the session starts). */
      lang: z.string().min(2).max(16).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('resolve'),
      intentId: z.string().min(1).max(128),
      /** The sealed text of the request that carried the work out (its inputs past the work go on). */
      sealedText: z.string().max(8_000),
      result: z.union([
        z.object({ ok: z.literal(true), data: z.record(z.string(), z.unknown()).optional() }).strict(),
        z.object({ ok: z.literal(false), reason: z.string().max(500) }).strict(),
      ]),
    })
    .strict(),
  z
    .object({
      kind: z.literal('close'),
      /** The aggregator's end-of-session report: its status (`Success`, `Incomplete`, `Failed`). */
      status: z.string().min(1).max(32),
      /** The phone the report names: another phone's report closes nothing. */
      phoneNumber: z.string().min(1).max(32),
    })
    .strict(),
]);

export type UssdMessage = z.infer<typeof ussdMessages>;

/** What callers address: each kind of USSD-session message, and what it answers (the next screen). */
export const ussdRef = actorRef<UssdMessage, { hop: HopReply; resolve: HopReply; close: CloseReply }>('ussd');
