import { z } from 'zod';
import { errorCodes } from '../../errors/index.js';
import type { RouteSpec } from '../http/router.js';

type Json = Record<string, unknown>;

const errorBody: Json = {
  type: 'object',
  required: ['statusCode', 'message', 'error'],
  properties: {
    // At the top, what clients written for the ixo oracle runtime (a NestJS app) read.
    statusCode: { type: 'integer' },
    message: { type: 'string' },
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(errorCodes) },
        message: { type: 'string' },
        details: {},
      },
    },
  },
};

/** An oracle route: an invocation with its selector, or a delegation. */
const ucanSecurity = [{ ucanInvocation: [], ucanSelector: [] }, { ucanDelegation: [] }];

/** Every API-key POST may carry one (see docs/api.md, Idempotency-Key). */
const idempotencyKey: Json = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description: 'Replays the first answer (2xx or 4xx) for the same method, path and body; 409 for another request',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,255}$' },
};

function schemaOf(schema: z.ZodType): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  return rest;
}

function queryParameters(schema: z.ZodType): Json[] {
  const json = schemaOf(schema) as { properties?: Record<string, Json>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: s,
  }));
}

function requestBody(body: z.ZodType, types: readonly string[]): Json {
  const schema = schemaOf(body);
  return { required: true, content: Object.fromEntries(types.map((t) => [t, { schema }])) };
}

/**
 * The OpenAPI 3.1 document of every documented route, built from the zod schemas the routes
 * parse with, so the document cannot drift from the code.
 */
export function buildOpenApi(routes: readonly RouteSpec[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    if (!r.doc) continue;
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    const responses: Record<string, Json> = {};
    for (const [status, description] of Object.entries(r.doc.responses)) {
      const failure = Number(status) >= 400;
      const types = failure ? ['application/json'] : [r.doc.responseType ?? 'application/json'].flat();
      // A text reply (USSD's `CON …`/`END …`, SSE) is a string; a JSON one has its schema when known.
      const schemaFor = (type: string): Json =>
        failure
          ? errorBody
          : type.startsWith('text/')
            ? { type: 'string' }
            : status === '200' && r.doc.responseBody
              ? schemaOf(r.doc.responseBody)
              : {};
      responses[status] = { description, content: Object.fromEntries(types.map((t) => [t, { schema: schemaFor(t) }])) };
    }
    responses.default = {
      description: 'An error (see the error codes)',
      content: { 'application/json': { schema: errorBody } },
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = {
      summary: r.doc.summary,
      tags: [r.doc.tag],
      parameters: [
        ...params,
        ...(r.doc.query ? queryParameters(r.doc.query) : []),
        ...(r.method === 'POST' && !r.doc.public && r.doc.auth !== 'ucan' ? [idempotencyKey] : []),
      ],
      ...(r.doc.body ? { requestBody: requestBody(r.doc.body, r.doc.bodyTypes ?? ['application/json']) } : {}),
      ...(r.doc.public ? { security: [] } : r.doc.auth === 'ucan' ? { security: ucanSecurity } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'hearth',
      version,
      description:
        'Vouchers, claims and surveys (spec 000), the conversational oracle (spec 001) and the USSD gateway (spec 002). ' +
        'Errors answer `{"statusCode","message","error":{"code","message","details"?}}`; supplier requests also carry an ' +
        'RFC 9421 message signature (`Signature-Input`, `Signature`, `Content-Digest`); the oracle routes take a UCAN ' +
        '(an invocation with `X-Auth-Type: ucan`, or a delegation in `x-ucan-delegation`) instead of an API key.',
    },
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' },
        ucanInvocation: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <base64 CAR of a ucanto invocation>; read only with X-Auth-Type: ucan',
        },
        ucanSelector: { type: 'apiKey', in: 'header', name: 'X-Auth-Type', description: 'exactly `ucan`' },
        ucanDelegation: {
          type: 'apiKey',
          in: 'header',
          name: 'x-ucan-delegation',
          description: 'base64 CAR of a delegation to ORACLE_DID (alone, or the fallback beside an invocation)',
        },
      },
      schemas: { Error: errorBody },
    },
    security: [{ apiKey: [] }],
    paths,
  };
}
