import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { SESSION_DELETED, sessionView, sessionViewSchema } from '../../actors/chat/messages.js';
import { askErrors } from '../http/ask-errors.js';
import { isAppError } from '../../errors/index.js';
import type { Asker } from '../../actors/runtime/asker.js';
import type { ChatReads } from './chat-reads.js';
import { parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { ucanGuarded, type OracleAuth } from './oracle-auth.js';
import { chatRef } from '../../actors/chat/messages.js';

/** `limit` (default 20, at most 100) and `offset` (default 0), as the wire reference and spec say. */
const sessionQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(20),
    offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
  })
  .strict();

const sessionParams = z.object({ sessionId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'is not a session id') });

export interface OracleIdentity {
  did: string;
  name: string;
  entityDid?: string;
}

/** Spec 001 sessions: create, list (the caller's own, newest first), delete. */
export function sessionRoutes(
  auth: OracleAuth | undefined,
  d: { client: Asker; reads: ChatReads; oracle: OracleIdentity },
): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/sessions',
      doc: {
        operationId: 'createChatSession',
        summary: 'Create a chat session (UCAN)',
        tag: 'oracle',
        responses: { 201: 'The session record' },
        responseBody: sessionViewSchema,
        errors: askErrors,
      },
      handler: ucanGuarded(auth, async (_ctx, who) => {
        const session = await d.client.ask(chatRef, randomUUID(), {
          kind: 'create',
          ownerDid: who.did,
          oracleName: d.oracle.name,
          oracleDid: d.oracle.did,
          ...(d.oracle.entityDid ? { oracleEntityDid: d.oracle.entityDid } : {}),
        });
        return json(201, sessionView(session));
      }),
    },
    {
      method: 'GET',
      path: '/sessions',
      doc: {
        operationId: 'listChatSessions',
        summary: "The caller's chat sessions, newest first (UCAN)",
        tag: 'oracle',
        query: sessionQuery,
        responses: { 200: 'A page of the sessions, and how many there are in all' },
        responseBody: z.strictObject({ sessions: z.array(sessionViewSchema), total: z.number().int().min(0) }),
        errors: ['VALIDATION_FAILED'],
      },
      handler: ucanGuarded(auth, async (ctx, who) => {
        const q = parseWith(sessionQuery, queryObject(ctx.query), 'query');
        const { items, total } = await d.reads.sessions(who.did, q.limit, q.offset);
        return json(200, { sessions: items.map(sessionView), total });
      }),
    },
    {
      method: 'DELETE',
      path: '/sessions/:sessionId',
      doc: {
        operationId: 'deleteChatSession',
        summary: 'Delete a chat session (UCAN; its owner only; idempotent)',
        tag: 'oracle',
        responses: { 200: '`{message}`, also for a session that is gone or never was the caller’s' },
        responseBody: z.strictObject({ message: z.literal(SESSION_DELETED) }),
        errors: ['VALIDATION_FAILED', ...askErrors],
      },
      handler: ucanGuarded(auth, async (ctx, who) => {
        const { sessionId } = parseWith(sessionParams, ctx.params, 'path');
        // As the reference runtime: a delete of a session that is not (or no longer) the caller's
        // answers the same, so a retried or doubled delete is not an error. Nothing of another
        // DID's session is touched, and the answer tells nothing about it.
        await d.client.ask(chatRef, sessionId, { kind: 'delete', ownerDid: who.did }).catch((err: unknown) => {
          if (!(isAppError(err) && err.code === 'CHAT_SESSION_NOT_FOUND')) throw err;
        });
        return json(200, { message: SESSION_DELETED });
      }),
    },
  ];
}
