import type { ChatSession } from '../../actors/chat/messages.js';
import type { Sql } from '../../store/db.js';
import { paged } from '../../store/paged.js';

/** Reads of chat sessions across actors: one user's, newest first. */
export class ChatReads {
  constructor(private readonly sql: Sql) {}

  async sessions(ownerDid: string, limit: number, offset: number): Promise<{ items: ChatSession[]; total: number }> {
    const { rows, total } = await paged(
      (l, o) => this.sql<{ doc: ChatSession; total: string }[]>`
        SELECT doc, count(*) OVER () AS total FROM chat_views
        WHERE owner_did = ${ownerDid} AND NOT deleted
        ORDER BY created_at DESC, key LIMIT ${l} OFFSET ${o}`,
      limit,
      offset,
    );
    return { items: rows.map((r) => r.doc), total };
  }
}
