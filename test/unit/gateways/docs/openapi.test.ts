import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApi } from '../../../../src/gateways/docs/openapi.js';
import type { RouteDoc, RouteSpec } from '../../../../src/gateways/http/router.js';

const handler = () => ({ status: 200 });
const route = (method: RouteSpec['method'], path: string, doc: RouteDoc, extra: Partial<RouteSpec> = {}) => ({
  method,
  path,
  handler,
  doc,
  ...extra,
});
const thing = z.strictObject({ id: z.string(), count: z.number().int().default(0) });
const errorRef = { $ref: '#/components/schemas/Error' };

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- reading the JSON document
function operation(routes: RouteSpec[], method: string, path: string): any {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reading the JSON document
  return (buildOpenApi(routes, '1.0.0') as any).paths[path][method];
}

describe('buildOpenApi', () => {
  it('gives every operation its operationId, and the document its server', () => {
    const routes = [route('GET', '/things/:id', { operationId: 'getThing', summary: 's', tag: 't', responses: {} })];
    const doc = buildOpenApi(routes, '1.0.0') as { servers: unknown; paths: Record<string, Record<string, object>> };
    expect(doc.paths['/things/{id}']?.get).toMatchObject({ operationId: 'getThing' });
    expect(doc.servers).toEqual([{ url: '/', description: 'This gateway' }]);
  });

  it('documents the answer schema on whichever success the route gives (201 here), as answered', () => {
    const routes = [
      route('POST', '/things', {
        operationId: 'createThing',
        summary: 's',
        tag: 't',
        public: true,
        responses: { 201: 'The thing' },
        responseBody: thing,
      }),
    ];
    const schema = operation(routes, 'post', '/things').responses['201'].content['application/json'].schema;
    // What the route answers: `count` is always there (its default applied), no other key.
    expect(schema).toMatchObject({ required: ['id', 'count'], additionalProperties: false });
  });

  it('takes a schema per status, leaves 204 without a body, and gives text answers a string', () => {
    const routes = [
      route('GET', '/things', {
        operationId: 'listThings',
        summary: 's',
        tag: 't',
        public: true,
        responseType: ['application/json', 'text/event-stream'],
        responses: { 200: 'the things', 202: 'started', 204: 'nothing' },
        responseBody: z.strictObject({ items: z.array(thing) }),
        responseBodies: { 202: z.strictObject({ started: z.boolean() }) },
      }),
    ];
    const { responses } = operation(routes, 'get', '/things');
    expect(Object.keys(responses['200'].content['application/json'].schema.properties)).toEqual(['items']);
    expect(Object.keys(responses['202'].content['application/json'].schema.properties)).toEqual(['started']);
    expect(responses['200'].content['text/event-stream'].schema).toEqual({ type: 'string' });
    expect(responses['204']).toEqual({ description: 'nothing' });
  });

  it('lists the errors of an API-key route by status, named by code, with the one error body', () => {
    const routes = [
      route('POST', '/things/:id/use', {
        operationId: 'useThing',
        summary: 's',
        tag: 't',
        body: z.strictObject({ by: z.number() }),
        responses: { 200: 'used' },
        responseBody: thing,
        errors: ['VOUCHER_NOT_FOUND', 'ASK_TIMEOUT'],
      }),
    ];
    const { responses } = operation(routes, 'post', '/things/{id}/use');
    expect(Object.keys(responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '429',
      '503',
      '504',
      'default',
    ]);
    expect(responses['404'].description).toBe('- `VOUCHER_NOT_FOUND`: No voucher with this id.');
    expect(responses['401'].description).toContain('`UNAUTHORIZED`');
    expect(responses['409'].description).toContain('`IDEMPOTENCY_KEY_REUSED`');
    expect(responses['503'].description).toContain('`SHUTTING_DOWN`');
    for (const status of ['400', '404', '504', 'default']) {
      expect(responses[status].content).toEqual({ 'application/json': { schema: errorRef } });
    }
  });

  it('adds no error a route cannot give: a public route read by its own parser, served while draining', () => {
    const routes = [
      route(
        'POST',
        '/callback',
        {
          operationId: 'callback',
          summary: 's',
          tag: 't',
          public: true,
          body: z.strictObject({ text: z.string() }),
          bodyTypes: ['application/x-www-form-urlencoded'],
          responseType: 'text/plain',
          responses: { 200: 'a screen' },
        },
        { serveWhileDraining: true, usesDatabase: false },
      ),
    ];
    expect(Object.keys(operation(routes, 'post', '/callback').responses)).toEqual(['200', 'default']);
  });

  it('documents an error status with a body of its own, or the error body when that can come too', () => {
    const body = z.strictObject({ status: z.enum(['ok', 'error']) });
    const routes = [
      route(
        'GET',
        '/health',
        {
          operationId: 'getHealth',
          summary: 's',
          tag: 't',
          public: true,
          responses: { 200: 'fine', 503: 'a part is down' },
          responseBody: body,
          responseBodies: { 503: body },
        },
        { usesDatabase: false },
      ),
    ];
    const unavailable = operation(routes, 'get', '/health').responses['503'];
    expect(unavailable.description).toBe(
      'a part is down\n\n- `SHUTTING_DOWN`: This process is shutting down; retry on another.',
    );
    expect(unavailable.content['application/json'].schema.anyOf).toEqual([
      expect.objectContaining({ properties: { status: { type: 'string', enum: ['ok', 'error'] } } }),
      errorRef,
    ]);
  });
});
