import { z } from 'zod';
import { errorCodes } from '../../errors/index.js';
import type { RouteSpec } from '../http/router.js';
import { describeCodes, errorsByStatus } from './route-errors.js';

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

/** A route that moves money refuses a request without one (RouteDoc.idempotencyKey). */
const idempotencyKeyRequired: Json = {
  ...idempotencyKey,
  required: true,
  description:
    'Required: this operation moves money, and its id is derived from the caller and this key, so a retry with ' +
    'the same key reaches the same operation and moves nothing twice. Without it 400 `IDEMPOTENCY_KEY_REQUIRED`; ' +
    'the same key with another request 409 `IDEMPOTENCY_KEY_REUSED`',
};

/** The Idempotency-Key parameter of a route: required where it is, optional on other API-key POSTs. */
function idempotencyParameter(r: RouteSpec): Json[] {
  if (r.doc.idempotencyKey === 'required') return [idempotencyKeyRequired];
  return r.method === 'POST' && !r.doc.public && r.doc.auth !== 'ucan' ? [idempotencyKey] : [];
}

/** A zod schema as JSON Schema: `input` for what a route accepts, `output` for what it answers. */
function schemaOf(schema: z.ZodType, io: 'input' | 'output' = 'input'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
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

const errorRef: Json = { $ref: '#/components/schemas/Error' };
const isJson = (type: string): boolean => /^application\/(.+\+)?json\b/.test(type);

/**
 * What one status answers. A success: the route's schema for JSON (`{}` when it has none; the
 * docs test refuses that), a string for text (USSD's `CON …`, SSE, Prometheus, HTML). An error:
 * the error body, or the route's own body (health's 503), or either when both can come.
 */
function contentOf(r: RouteSpec, status: number, hasCodes: boolean): Json {
  const own = r.doc.responseBodies?.[status] ?? (status < 300 ? r.doc.responseBody : undefined);
  if (status >= 400) {
    const schema = !own
      ? errorRef
      : hasCodes
        ? { anyOf: [schemaOf(own, 'output'), errorRef] }
        : schemaOf(own, 'output');
    return { 'application/json': { schema } };
  }
  const types = [r.doc.responseType ?? 'application/json'].flat();
  const schemaFor = (type: string): Json => (!isJson(type) ? { type: 'string' } : own ? schemaOf(own, 'output') : {});
  return Object.fromEntries(types.map((t) => [t, { schema: schemaFor(t) }]));
}

/** The route's own answers and the errors it can give (its own codes and those of its kind), by status. */
function responsesOf(r: RouteSpec): Record<string, Json> {
  const errors = errorsByStatus(r);
  const statuses = [...new Set([...Object.keys(r.doc.responses).map(Number), ...errors.keys()])].sort((a, b) => a - b);
  const responses: Record<string, Json> = {};
  for (const status of statuses) {
    const codes = errors.get(status) ?? [];
    const description = [r.doc.responses[status], codes.length ? describeCodes(codes) : undefined]
      .filter((d) => d !== undefined)
      .join('\n\n');
    // 204 No Content has no body to describe.
    responses[status] =
      status === 204 ? { description } : { description, content: contentOf(r, status, codes.length > 0) };
  }
  responses.default = {
    description: 'Any other error: 500 `INTERNAL` or `ACTOR_FAILED`, 405 for another method (see the error codes)',
    content: { 'application/json': { schema: errorRef } },
  };
  return responses;
}

/**
 * The OpenAPI 3.1 document of every documented route, built from the zod schemas the routes
 * parse with and answer in, so the document cannot drift from the code.
 */
export function buildOpenApi(routes: readonly RouteSpec[], version: string): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const params = [...r.path.matchAll(/:([A-Za-z]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    (paths[path] ??= {})[r.method.toLowerCase()] = {
      operationId: r.doc.operationId,
      summary: r.doc.summary,
      tags: [r.doc.tag],
      parameters: [...params, ...(r.doc.query ? queryParameters(r.doc.query) : []), ...idempotencyParameter(r)],
      ...(r.doc.body ? { requestBody: requestBody(r.doc.body, r.doc.bodyTypes ?? ['application/json']) } : {}),
      ...(r.doc.public ? { security: [] } : r.doc.auth === 'ucan' ? { security: ucanSecurity } : {}),
      responses: responsesOf(r),
    };
  }
  return {
    openapi: '3.1.0',
    // Relative: the document is served by the gateway it describes, at whatever address it is reached.
    servers: [{ url: '/', description: 'This gateway' }],
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
