import { z } from 'zod';
import type { Asker } from '../../../actors/runtime/asker.js';
import { counterStateSchema } from '../../../actors/counter/index.js';
import { echoReply } from '../../../actors/echo/index.js';
import { askErrors } from '../ask-errors.js';
import { jsonBody, parseWith } from '../context.js';
import { json } from '../reply.js';
import type { RouteSpec } from '../router.js';

const echoBody = z.object({ key: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/), payload: z.unknown() }).strict();
const counterParams = z.object({ key: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/) });
const addBody = z.object({ by: z.number().int().min(1).max(1000).default(1) }).strict();

/**
 * Round trips through the runtime for operators and tests (HEARTH_DIAGNOSTICS=true only):
 * `POST /v1/diagnostics/echo`, `POST /v1/diagnostics/counters/:key`, `GET /v1/diagnostics/counters/:key`.
 */
export function diagnosticsRoutes(client: Asker): RouteSpec[] {
  return [
    {
      method: 'POST',
      path: '/v1/diagnostics/echo',
      doc: {
        operationId: 'echo',
        summary: 'Round trip through the echo actor (HEARTH_DIAGNOSTICS=true)',
        tag: 'diagnostics',
        // No guard: the routes exist only where HEARTH_DIAGNOSTICS is set, for operators and tests.
        public: true,
        body: echoBody,
        responses: { 200: 'The payload, echoed by the actor' },
        responseBody: echoReply,
        errors: askErrors,
      },
      async handler(ctx) {
        const body = await jsonBody(ctx, echoBody);
        return json(200, await client.ask('echo', body.key, { kind: 'echo', payload: body.payload }));
      },
    },
    {
      method: 'POST',
      path: '/v1/diagnostics/counters/:key',
      doc: {
        operationId: 'addToCounter',
        summary: 'Add to a counter actor (HEARTH_DIAGNOSTICS=true)',
        tag: 'diagnostics',
        public: true,
        body: addBody,
        responses: { 200: 'The counter after the addition' },
        responseBody: counterStateSchema,
        errors: askErrors,
      },
      async handler(ctx) {
        const { key } = parseWith(counterParams, ctx.params, 'path');
        const body = await jsonBody(ctx, addBody.default({ by: 1 }));
        return json(200, await client.ask('counter', key, { kind: 'add', by: body.by }));
      },
    },
    {
      method: 'GET',
      path: '/v1/diagnostics/counters/:key',
      doc: {
        operationId: 'getCounter',
        summary: 'Read a counter actor (HEARTH_DIAGNOSTICS=true)',
        tag: 'diagnostics',
        public: true,
        responses: { 200: 'The counter' },
        responseBody: counterStateSchema,
        errors: ['VALIDATION_FAILED', ...askErrors],
      },
      async handler(ctx) {
        const { key } = parseWith(counterParams, ctx.params, 'path');
        return json(200, await client.ask('counter', key, { kind: 'get' }));
      },
    },
  ];
}
