import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { RedisClient } from '../../store/redis/redis.js';
import type { Asker } from '../../actors/runtime/asker.js';
import type { Keys } from '../../store/redis/keys.js';
import { ModelError, modelFailure } from './agent/model-error.js';
import { lastEventId, requestAbort, type ChatEventHub } from './agent/chat-events.js';
import { runTurn, type TurnDeps } from './agent/turn-runner.js';
import { keepReading, releaseTurn, TURN_MS } from './agent/turn-mark.js';
import { takeOrReplaceTurn } from './turn-taking.js';
import { chosenModel, type ModelCatalog } from './agent/models.js';
import type { HttpContext } from '../http/context.js';
import { compareStreamIds, isStreamId } from '../../actors/runtime/stream-id.js';
import type { Sql } from '../../store/db.js';
import { chatTranscript, transcriptEntrySchema } from './chat-transcript.js';
import { askErrors } from '../http/ask-errors.js';
import { jsonBody, parseWith } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import { abortBody, sendMessageBody } from './message-dto.js';
import { turnStream, type TurnStreamDeps } from './turn-stream.js';
import { ucanGuarded, type OracleAuth } from './oracle-auth.js';
import { chatRef } from '../../actors/chat/messages.js';
import { chatKeys } from './chat-keys.js';

/** The JSON answer of a whole turn (no `stream`). */
const turnAnswer = z.strictObject({
  message: z.strictObject({ type: z.literal('ai'), content: z.string(), id: z.string() }),
  sessionId: z.string(),
  /** With `returnAllMessages`: the whole transcript, this turn's messages included. */
  messages: z.array(transcriptEntrySchema).optional(),
});

const sessionParams = z.object({ sessionId: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/, 'is not a session id') });

export interface MessageDeps extends TurnDeps, TurnStreamDeps {
  /** Plugins' checks before a turn (the credits gate answers 402 there). */
  beforeMessage?: (who: { did: string }) => Promise<void>;
  sql: Sql;
  redis: RedisClient;
  keys: Keys;
  client: Asker;
  hub: ChatEventHub;
  /** The models a message may ask for (`model`). */
  models: ModelCatalog;
}

/** Spec 001 messages: send (JSON or SSE), list, abort — the session's owner only. */
export function messageRoutes(auth: OracleAuth | undefined, d: MessageDeps): RouteSpec[] {
  const owned = (sessionId: string, did: string) => d.client.ask(chatRef, sessionId, { kind: 'get', ownerDid: did });
  return [
    {
      method: 'POST',
      path: '/messages/abort',
      doc: {
        operationId: 'abortMessage',
        summary: 'Abort the stream in flight of a session (UCAN; its owner only)',
        tag: 'oracle',
        body: abortBody,
        responses: { 200: '`success`: whether a turn was in flight to abort' },
        responseBody: z.strictObject({ success: z.boolean() }),
        errors: ['CHAT_SESSION_NOT_FOUND', ...askErrors],
      },
      handler: ucanGuarded(auth, async (ctx, who) => {
        const { sessionId } = await jsonBody(ctx, abortBody);
        await owned(sessionId, who.did);
        const requestId = await d.redis.get(chatKeys.turn(d.keys, sessionId));
        if (!requestId) return json(200, { success: false });
        await requestAbort(d.redis, d.keys, sessionId, requestId);
        return json(200, { success: true });
      }),
    },
    {
      method: 'GET',
      path: '/messages/:sessionId/stream',
      doc: {
        summary:
          'Follow the turn in flight from any gateway: its SSE events from its start (or after Last-Event-ID), through done; 204 when none (UCAN; its owner only)',
        operationId: 'followTurn',
        tag: 'oracle',
        responseType: 'text/event-stream',
        responses: { 200: 'text/event-stream, frames with id:', 204: 'no turn in flight' },
        errors: ['VALIDATION_FAILED', 'CHAT_SESSION_NOT_FOUND', ...askErrors],
      },
      handler: ucanGuarded(auth, async (ctx, who) => {
        const { sessionId } = parseWith(sessionParams, ctx.params, 'path');
        await owned(sessionId, who.did);
        const requestId = await d.redis.get(chatKeys.turn(d.keys, sessionId));
        if (!requestId) return { status: 204 };
        const start = (await d.redis.get(chatKeys.turnStart(d.keys, sessionId, requestId))) ?? '0';
        // Resume after the client's last event, if it lies within this turn (an id from before
        // the turn or from the future would skip or stall the stream).
        const after = ctx.headers['last-event-id'];
        const latest = await lastEventId(d.redis, d.keys, sessionId);
        const from =
          after && isStreamId(after) && compareStreamIds(after, start) > 0 && compareStreamIds(after, latest) <= 0
            ? after
            : start;
        // A reader id of its own: the client's X-Request-Id may be another tab's too.
        return turnStream(d, { sessionId, requestId, from }, { withIds: true, readerId: randomUUID() });
      }),
    },
    {
      method: 'GET',
      path: '/messages/:sessionId',
      doc: {
        operationId: 'listMessages',
        summary: 'The messages of a session (UCAN; its owner only)',
        tag: 'oracle',
        responses: { 200: 'The transcript, in order' },
        responseBody: z.strictObject({ messages: z.array(transcriptEntrySchema) }),
        errors: ['VALIDATION_FAILED', 'CHAT_SESSION_NOT_FOUND', ...askErrors],
      },
      handler: ucanGuarded(auth, async (ctx, who) => {
        const { sessionId } = parseWith(sessionParams, ctx.params, 'path');
        await owned(sessionId, who.did);
        return json(200, { messages: await chatTranscript(d.sql, sessionId) });
      }),
    },
    {
      method: 'POST',
      path: '/messages/:sessionId',
      doc: {
        operationId: 'sendMessage',
        summary: 'Send a message: one JSON reply, or an SSE stream with `stream: true` (UCAN; its owner only)',
        tag: 'oracle',
        body: sendMessageBody,
        responseType: ['application/json', 'text/event-stream'],
        responses: { 200: 'The answer as JSON, or with `stream: true` its events as text/event-stream' },
        responseBody: turnAnswer,
        errors: [
          'CHAT_SESSION_NOT_FOUND',
          'PAYMENT_REQUIRED',
          'CHAT_TURN_IN_FLIGHT',
          'CHAT_REQUEST_ID_REUSED',
          'MODEL_RATE_LIMITED',
          'MODEL_UNAVAILABLE',
          ...askErrors,
        ],
      },
      // A whole turn without `stream` waits on the model (bounded by its idle timeout and the
      // client-call timeout), which can outlast REQUEST_DEADLINE_MS.
      deadline: 'none',
      handler: ucanGuarded(auth, async (ctx, who) => {
        const { sessionId } = parseWith(sessionParams, ctx.params, 'path');
        const body = await jsonBody(ctx, sendMessageBody);
        await owned(sessionId, who.did);
        await d.beforeMessage?.(who);
        const requestId = ctx.reqId;
        // Where the turn's events begin (read before the turn is taken, so an abort sent as soon
        // as it is taken still comes after it): a stream resumed on any gateway replays from here.
        const from = await lastEventId(d.redis, d.keys, sessionId);
        await takeOrReplaceTurn(d, { sessionId, requestId, from });
        const turn = {
          sessionId,
          requestId,
          did: who.did,
          message: body.message,
          timezone: body.timezone ?? ctx.headers['x-timezone'],
          ...modelOf(d, body.model, ctx),
          ...(body.tools ? { browserTools: body.tools } : {}),
          ...(body.agActions ? { agActions: body.agActions } : {}),
          ...(body.attachments
            ? {
                attachments: body.attachments.map((a) => ({
                  filename: a.filename,
                  mimetype: a.mimetype,
                  ref: a.mxcUri ?? a.eventId ?? '',
                })),
              }
            : {}),
          from,
        };
        try {
          await d.redis.set(chatKeys.turnStart(d.keys, sessionId, requestId), from, 'PX', TURN_MS);
        } catch (err) {
          // The turn never started: the session must not stay taken.
          await releaseTurn(d.redis, d.keys, sessionId, requestId).catch(() => undefined); // lapses with TURN_MS
          throw err;
        }
        if (!body.stream) {
          // The client waiting for the answer reads the turn: it is not replaced meanwhile.
          const stopReading = keepReading(d.redis, d.keys, turn, requestId, ctx.signal);
          const result = await runTurn(d, turn)
            .catch((err: unknown) => {
              throw err instanceof ModelError ? modelFailure(err) : err;
            })
            .finally(stopReading);
          return json(200, {
            message: { type: 'ai', content: result.content, id: result.id },
            sessionId,
            ...(body.returnAllMessages ? { messages: await chatTranscript(d.sql, sessionId) } : {}),
          });
        }
        // Started here, not when the stream opens: the turn runs (and frees the session) even if
        // the client is gone before its first byte; its answer joins the transcript.
        void runTurn(d, turn).catch(() => undefined); // runTurn logs its failure and tells the stream
        return turnStream(d, { sessionId, requestId, from }, { withIds: false, readerId: requestId });
      }),
    },
  ];
}

/** The model a message asked for, if offered; one that is not is ignored (logged), as the reference runtime does. */
function modelOf(d: MessageDeps, asked: string | undefined, ctx: HttpContext): { model?: string } {
  const model = chosenModel(d.models, asked);
  if (asked !== undefined && model === undefined) {
    ctx.log.info({ asked: asked.slice(0, 200), default: d.models.default }, 'model not offered; the default answers');
  }
  return model === undefined ? {} : { model };
}
