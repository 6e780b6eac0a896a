import { z } from 'zod';

const reason = z.string().trim().min(1).max(500);

/**
 * The body of a regulator's decision (a claim, an ITMO certificate): a reason may come with a
 * yes, and must come with a no, so the party refused can read why.
 */
export function decisionBody(yes: boolean) {
  return yes ? z.object({ reason: reason.optional() }).strict() : z.object({ reason }).strict();
}
