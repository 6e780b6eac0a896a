import { z } from 'zod';
import { actorRef } from '../runtime/actor-ref.js';

/** What the oracle gateway sends a chat actor (a session) (keyed by sessionId). */
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
  /** Adds messages of a turn to the transcript (the owner's only). */
  z
    .object({
      kind: z.literal('append'),
      ownerDid: z.string().min(1).max(512),
      messages: z
        .array(
          z
            .object({
              id: z.string().min(1).max(128),
              type: z.enum(['human', 'ai']),
              content: z.string().max(100_000),
              requestId: z.string().max(128),
              toolCalls: z
                .array(
                  z.object({
                    name: z.string(),
                    id: z.string(),
                    args: z.unknown(),
                    status: z.string().optional(),
                    output: z.unknown().optional(),
                  }),
                )
                .optional(),
            })
            .strict(),
        )
        .max(10),
    })
    .strict(),
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
  /** Messages in the transcript so far. */
  messageCount?: number;
}

/** A transcript entry as `GET /messages/:sessionId` shows it (wire reference). */
export interface ChatRecord {
  id: string;
  type: 'human' | 'ai';
  content: string;
  requestId: string;
  toolCalls?: Array<{ name: string; id: string; args: unknown; status?: string; output?: unknown }>;
  createdAt: string;
  /** Order within the session. */
  seq: number;
}

/** The answer to a delete (wire reference). */
export const SESSION_DELETED = 'Session deleted successfully';

/** What {@link sessionView} answers (wire reference). */
export const sessionViewSchema = z.strictObject({
  sessionId: z.string(),
  title: z.string().optional(),
  createdAt: z.iso.datetime(),
  lastUpdatedAt: z.iso.datetime(),
  oracleName: z.string(),
  oracleDid: z.string(),
  oracleEntityDid: z.string().optional(),
}) satisfies z.ZodType<Omit<ChatSession, 'ownerDid' | 'deleted' | 'messageCount'>>;

/** The record without the fields clients do not see. */
export function sessionView(s: ChatSession): z.output<typeof sessionViewSchema> {
  const { ownerDid: _owner, deleted: _deleted, messageCount: _count, ...view } = s;
  return view;
}

/** What callers address: each kind of chat message, and what it answers. */
export const chatRef = actorRef<
  ChatMessage,
  { create: ChatSession; get: ChatSession; delete: { message: string }; append: { appended: number } }
>('chat');
