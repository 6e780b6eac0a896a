import { z } from 'zod';
import { errorCodes } from '../../errors/index.js';
import type { RouteSpec } from '../http/router.js';

type Json = Record<string, unknown>;

const errorBody: Json = {
  type: 'object',
  required: ['error'],
  properties: {
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
      const type = failure ? 'application/json' : (r.doc.responseType ?? 'application/json');
      // A text reply (USSD's `CON …`/`END …`, SSE) is a string; a JSON one has its schema when known.
      const schema = failure
        ? errorBody
        : type.startsWith('text/')
          ? { type: 'string' }
          : status === '200' && r.doc.responseBody
            ? schemaOf(r.doc.responseBody)
            : {};
      responses[status] = { description, content: { [type]: { schema } } };
    }
    responses.default = {
      description: 'An error (see the error codes)',
      content: { 'application/json': { schema: errorBody } },
    };
    (paths[path] ??= {})[r.method.toLowerCase()] = {
      summary: r.doc.summary,
      tags: [r.doc.tag],
      parameters: [...params, ...(r.doc.query ? queryParameters(r.doc.query) : [])],
      ...(r.doc.body ? { requestBody: requestBody(r.doc.body, r.doc.bodyTypes ?? ['application/json']) } : {}),
      ...(r.doc.public ? { security: [] } : {}),
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
        'Errors answer `{"error":{"code","message","details"?}}`; supplier requests also carry an RFC 9421 message signature.',
    },
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' } },
      schemas: { Error: errorBody },
    },
    security: [{ apiKey: [] }],
    paths,
  };
}
