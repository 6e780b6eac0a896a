import { z } from 'zod';
import { AppError } from '../../errors/index.js';
import { guarded, type Guards } from '../auth/guard.js';
import { jsonBody, parseWith, queryObject } from '../http/context.js';
import { json } from '../http/reply.js';
import type { RouteSpec } from '../http/router.js';
import type { DeadLetters } from './dead-letters.js';
import type { OperatorActions } from './operator-actions.js';
import { deadLetterSchema, letterOutcome, operatorActionSchema } from './views.js';

const listQuery = z
  .object({
    type: z.string().trim().min(1).max(64).optional(),
    limit: z.coerce.number().int().min(1).max(500).default(50),
  })
  .strict();

const letterRef = z
  .object({
    type: z.string().trim().min(1).max(64),
    partition: z.number().int().min(0).max(4_095),
    id: z.string().regex(/^\d{1,20}-\d{1,20}$/, 'must be a stream entry id such as 1700000000000-0'),
  })
  .strict();

const letterRefs = z.object({ items: z.array(letterRef).min(1).max(100) }).strict();

/**
 * Operators' routes (admin keys only): the dead letters of every actor type, inspected, replayed
 * to their mailbox or discarded, one or in bulk, every change recorded (who, when, what) and
 * listed at `GET /v1/operator-actions`.
 */
export function operatorRoutes(g: Guards, d: { deadLetters: DeadLetters; actions: OperatorActions }): RouteSpec[] {
  const known = (type: string, partition?: number): void => {
    const partitions = d.deadLetters.partitionsOf(type);
    if (partitions === undefined)
      throw new AppError('VALIDATION_FAILED', 'invalid request', [
        { path: 'type', message: `is no actor type of this deployment: ${type}` },
      ]);
    if (partition !== undefined && partition >= partitions) {
      throw new AppError('VALIDATION_FAILED', 'invalid request', [
        { path: 'partition', message: `${type} has partitions 0-${partitions - 1}` },
      ]);
    }
  };
  const bulk = (
    action: 'replay' | 'discard',
    apply: (r: z.infer<typeof letterRef>) => Promise<{ status: string; messageId?: string }>,
  ): RouteSpec => ({
    method: 'POST',
    path: `/v1/dead-letters/${action}`,
    doc: {
      operationId: action === 'replay' ? 'replayDeadLetters' : 'discardDeadLetters',
      summary:
        action === 'replay'
          ? 'Replay dead letters to their mailbox (admin; recorded)'
          : 'Discard dead letters (admin; recorded)',
      tag: 'operators',
      body: letterRefs,
      responses: {
        200: `{results: [{type, partition, id, status}]}: \`${action === 'replay' ? 'replayed' : 'discarded'}\` (with \`messageId\` for a replay), or \`gone\` when it was no longer there`,
      },
      responseBody: z.strictObject({ results: z.array(letterOutcome) }),
    },
    handler: guarded(g, ['admin'], async (ctx, who) => {
      const { items } = await jsonBody(ctx, letterRefs);
      for (const r of items) known(r.type, r.partition);
      const results = [];
      for (const r of items) {
        const outcome = await apply(r);
        if (outcome.status !== 'gone') {
          await d.actions.record(who.keyId, `dead-letter.${action}`, `${r.type}/${r.partition}/${r.id}`, outcome);
        }
        results.push({ ...r, ...outcome });
      }
      return json(200, { results });
    }),
  });
  return [
    {
      method: 'GET',
      path: '/v1/dead-letters',
      doc: {
        operationId: 'listDeadLetters',
        summary: 'Dead letters, newest first, of one actor type or all (admin)',
        tag: 'operators',
        query: listQuery,
        responses: { 200: 'The newest dead letters (secrets redacted), and how many there are in all' },
        responseBody: z.strictObject({ items: z.array(deadLetterSchema), total: z.number().int().min(0) }),
        errors: ['VALIDATION_FAILED'],
      },
      handler: guarded(g, ['admin'], async (ctx) => {
        const q = parseWith(listQuery, queryObject(ctx.query), 'query');
        if (q.type) known(q.type);
        return json(200, await d.deadLetters.list(q.type, q.limit));
      }),
    },
    {
      method: 'GET',
      path: '/v1/dead-letters/:type/:partition/:id',
      doc: {
        operationId: 'getDeadLetter',
        summary: 'One dead letter (admin; secrets redacted)',
        tag: 'operators',
        responses: { 200: 'The dead letter' },
        responseBody: deadLetterSchema,
        errors: ['VALIDATION_FAILED', 'NOT_FOUND'],
      },
      handler: guarded(g, ['admin'], async (ctx) => {
        const ref = parseWith(
          letterRef,
          { type: ctx.params.type, partition: Number(ctx.params.partition), id: ctx.params.id },
          'path',
        );
        known(ref.type, ref.partition);
        const letter = await d.deadLetters.get(ref.type, ref.partition, ref.id);
        if (!letter) throw new AppError('NOT_FOUND', `no dead letter ${ref.type}/${ref.partition}/${ref.id}`);
        return json(200, letter);
      }),
    },
    bulk('replay', async (r) => {
      const messageId = await d.deadLetters.replay(r.type, r.partition, r.id);
      return messageId ? { status: 'replayed', messageId } : { status: 'gone' };
    }),
    bulk('discard', async (r) => ({
      status: (await d.deadLetters.discard(r.type, r.partition, r.id)) ? 'discarded' : 'gone',
    })),
    {
      method: 'GET',
      path: '/v1/operator-actions',
      doc: {
        operationId: 'listOperatorActions',
        summary: 'What operators did through the API, newest first (admin)',
        tag: 'operators',
        query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }).strict(),
        responses: { 200: 'The newest operator actions' },
        responseBody: z.strictObject({ items: z.array(operatorActionSchema) }),
      },
      handler: guarded(g, ['admin'], async (ctx) => {
        const limit = Math.min(500, Math.max(1, Number(ctx.query.get('limit') ?? 50) || 50));
        return json(200, { items: await d.actions.list(limit) });
      }),
    },
  ];
}
