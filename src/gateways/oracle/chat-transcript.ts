import { z } from 'zod';
import type { ChatRecord } from '../../actors/chat/messages.js';
import type { Sql } from '../../store/db.js';
import { toolOutputText } from './agent/tool-output.js';
import type { TranscriptEntry } from './agent/history.js';

/** A message as {@link chatTranscript} shows it. */
export const transcriptEntrySchema = z.strictObject({
  id: z.string(),
  type: z.enum(['human', 'ai']),
  content: z.string(),
  toolCalls: z
    .array(
      z.strictObject({
        name: z.string(),
        id: z.string(),
        args: z.unknown(),
        status: z.string().optional(),
        /** As text: ixo's SDK reads a string. */
        output: z.string().optional(),
      }),
    )
    .optional(),
  isComplete: z.literal(true),
  isReasoning: z.literal(false),
});

/** A session's messages in order, as `GET /messages/:sessionId` shows them (wire reference). */
export async function chatTranscript(
  sql: Sql,
  sessionId: string,
): Promise<Array<z.output<typeof transcriptEntrySchema>>> {
  const rows = await sql<{ body: ChatRecord }[]>`
    SELECT body FROM actor_records WHERE actor_type = 'chat' AND actor_key = ${sessionId} AND kind = 'message'
    ORDER BY (body ->> 'seq')::int`;
  return rows.map(({ body: m }) => ({
    id: m.id,
    type: m.type,
    content: m.content,
    // Outputs as text (ixo's SDK reads a string), also those of records stored before this rule.
    ...(m.toolCalls?.length
      ? {
          // An absent output stays absent: JSON leaves out a key whose value is undefined.
          toolCalls: m.toolCalls.map((c) => ({
            ...c,
            output: c.output === undefined ? undefined : toolOutputText(c.output),
          })),
        }
      : {}),
    isComplete: true,
    isReasoning: false,
  }));
}

/**
 * The last `limit` messages of a session, oldest first (what an agent's history is cut from),
 * and how many the session has in all.
 */
export async function chatHistory(
  sql: Sql,
  sessionId: string,
  limit: number,
): Promise<{ entries: TranscriptEntry[]; total: number }> {
  const rows = await sql<{ body: ChatRecord; total: number }[]>`
    SELECT body, count(*) OVER ()::int AS total FROM actor_records
    WHERE actor_type = 'chat' AND actor_key = ${sessionId} AND kind = 'message'
    ORDER BY (body ->> 'seq')::int DESC LIMIT ${limit}`;
  const entries = rows.reverse().map(({ body: m }) => ({
    type: m.type,
    content: m.content,
    ...(m.toolCalls?.length ? { toolCalls: m.toolCalls } : {}),
  }));
  return { entries, total: rows[0]?.total ?? 0 };
}
