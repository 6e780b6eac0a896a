import { z } from 'zod';

/** What the oracle gateway sends a chat-session actor (keyed by sessionId). */
export const chatMessages = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('create'),
      ownerDid: z.string().min(1).max(512),
      oracleName: z.string().max(200),
      oracleDid: z.string().max(512),
      oracleEntityDid: z.string().max(512).optional(),
    })
    .strict(),
  /** Answers the session for its owner only (another DID gets "not found"). */
  z.object({ kind: z.literal('get'), ownerDid: z.string().min(1).max(512) }).strict(),
  z.object({ kind: z.literal('delete'), ownerDid: z.string().min(1).max(512) }).strict(),
]);

export type ChatMessage = z.infer<typeof chatMessages>;

/** A session record, as the wire reference shows it (plus its owner and state, kept inside). */
export interface ChatSession {
  sessionId: string;
  title?: string;
  createdAt: string;
  lastUpdatedAt: string;
  oracleName: string;
  oracleDid: string;
  oracleEntityDid?: string;
  ownerDid: string;
  deleted: boolean;
}

/** The record without the fields clients do not see. */
export function sessionView(s: ChatSession): Record<string, unknown> {
  const { ownerDid: _owner, deleted: _deleted, ...view } = s;
  return view;
}
