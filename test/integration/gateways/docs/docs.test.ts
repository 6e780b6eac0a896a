import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { counterStateSchema } from '../../../../src/actors/counter/index.js';
import { voucherViewSchema } from '../../../../src/actors/voucher/representation.js';
import { apiKeyRecordSchema } from '../../../../src/gateways/auth/api-key-store.js';
import { pageOf } from '../../../../src/gateways/http/pagination.js';
import { healthBody } from '../../../../src/gateways/http/routes/health.js';
import { modelCatalogSchema } from '../../../../src/gateways/oracle/agent/models.js';
import { registryRecords } from '../../../../src/gateways/registries/schemas.js';
import { blockViewSchema } from '../../../../src/ledger/ledger-reads.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { version } from '../../../../src/version.js';
import { adminKey, api } from '../../../support/api.js';
import { conversionParties } from '../../../support/conversion-fixtures.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { newDidKey, setUpScheme } from '../../../support/voucher-fixtures.js';

type Operation = {
  operationId?: string;
  responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>;
};

/** The document's schema of an answer, as buildOpenApi writes a zod schema (openapi.ts, schemaOf). */
function asDocumented(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io: 'output', unrepresentable: 'any' });
  return rest;
}

/**
 * The routes that move money, and so refuse a request without an Idempotency-Key: the one list
 * both checks below read, the server's refusal and the document's `required: true`.
 */
const keyRequired: Array<{ path: string; url?: string; as: 'supplier' | 'implementer'; body: object }> = [
  { path: '/v1/conversions/carbon-to-stable', as: 'supplier', body: { amount: 1, minReceive: 0 } },
  { path: '/v1/conversions/stable-to-carbon', as: 'implementer', body: { amount: 1, minReceive: 0 } },
  {
    path: '/v1/pools/{id}/deposits',
    url: '/v1/pools/CARBON-USDC/deposits',
    as: 'implementer',
    body: { amounts: { CARBON: 1, USDC: 2 } },
  },
  { path: '/v1/payouts', as: 'supplier', body: { processor: 'zamtel-money', amount: 1, currency: 'ZMW', rate: 27 } },
  {
    path: '/v1/exchange-orders',
    as: 'implementer',
    body: { exchange: 'lusaka-fx', fiatAmount: 27, currency: 'ZMW', rate: 27 },
  },
  { path: '/v1/itmo-claims', as: 'implementer', body: { amount: 1 } },
  {
    path: '/v1/itmo-certificates',
    as: 'implementer',
    body: {
      claims: ['itc_x'],
      registry: 'Zambia National Registry',
      serialRange: { from: 'ZM-1', to: 'ZM-2' },
      agreement: { id: 'MOPA-1', buyer: 'Buyer' },
      fiatReceived: { amount: 1, currency: 'USD' },
    },
  },
];

describe('/docs', () => {
  let env: Isolated;
  let hearth: Hearth;
  let base = '';

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ ACTOR_PARTITIONS: '2', HEARTH_DIAGNOSTICS: 'true', HEARTH_ADMIN_KEY: adminKey }),
      env.log,
    );
    base = `http://127.0.0.1:${hearth.port}`;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('serves the interactive documentation and its assets without a key, from this server', async () => {
    const page = await fetch(`${base}/docs`, { headers: { authorization: 'Bearer garbage' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('/docs/swagger-ui-bundle.js');
    const bundle = await fetch(`${base}/docs/swagger-ui-bundle.js`);
    expect(bundle.status).toBe(200);
    expect((await bundle.text()).length).toBeGreaterThan(100_000);
    expect((await fetch(`${base}/docs/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${base}/docs/missing.js`)).status).toBe(404);
  });

  it('describes every route of spec 000 with request schemas generated from the zod schemas', async () => {
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      openapi: string;
      info: { version: string };
      paths: Record<
        string,
        Record<
          string,
          {
            requestBody?: {
              content: Record<
                string,
                { schema: { properties?: Record<string, unknown>; additionalProperties?: boolean } }
              >;
            };
          }
        >
      >;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(version);
    for (const [path, method] of [
      ['/v1/vouchers/issue', 'post'],
      ['/v1/vouchers/redeem', 'post'],
      ['/v1/claims', 'post'],
      ['/v1/surveys', 'post'],
      ['/v1/surveys/{id}/responses', 'post'],
      ['/v1/vouchers/{id}', 'get'],
      ['/v1/households', 'post'],
      ['/v1/api-keys', 'post'],
      ['/health', 'get'],
      ['/sessions', 'post'],
      ['/messages/{sessionId}', 'post'],
      ['/messages/{sessionId}/stream', 'get'],
      ['/messages/abort', 'post'],
      ['/delegation', 'post'],
      ['/api/ussd', 'post'],
      ['/api/ussd/sessions', 'get'],
      ['/api/ussd/events', 'post'],
    ] as const) {
      expect(doc.paths[path]?.[method], `${method} ${path}`).toBeDefined();
    }
    const redeem = doc.paths['/v1/vouchers/redeem']?.post?.requestBody?.content['application/json']?.schema;
    expect(Object.keys(redeem?.properties ?? {}).sort()).toEqual([
      'amount',
      'productId',
      'supplierDid',
      'voucherCode',
      'voucherId',
    ]);
    expect(redeem?.additionalProperties).toBe(false);
  });

  it('documents the USSD callback as the aggregators use it: JSON or form body in, text/plain out', async () => {
    type Op = {
      requestBody: { content: Record<string, { schema: { properties: Record<string, unknown> } }> };
      responses: Record<string, { content: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
    };
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Op>>;
    };
    const callback = doc.paths['/api/ussd']!.post!;
    expect(Object.keys(callback.requestBody.content).sort()).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
    ]);
    expect(Object.keys(callback.requestBody.content['application/json']!.schema.properties)).toEqual(
      expect.arrayContaining(['sessionId', 'serviceCode', 'phoneNumber', 'text']),
    );
    expect(Object.keys(callback.responses['200']!.content)).toEqual(['text/plain']);
    expect(callback.responses['200']!.content['text/plain']!.schema).toEqual({ type: 'string' });
    // Every request is a screen: no 4xx is documented for the callback.
    expect(Object.keys(callback.responses).filter((status) => status.startsWith('4'))).toEqual([]);
    const events = doc.paths['/api/ussd/events']!.post!;
    expect(Object.keys(events.requestBody.content['application/x-www-form-urlencoded']!.schema.properties)).toEqual(
      expect.arrayContaining(['sessionId', 'phoneNumber', 'status', 'hopsCount', 'durationInMillis', 'errorMessage']),
    );
    const list = doc.paths['/api/ussd/sessions']!.get!.responses['200']!.content['application/json']!.schema;
    expect(Object.keys(list.properties ?? {}).sort()).toEqual(['count', 'sessions']);
  });

  it('lists every route the server answers, including its own and the diagnostics routes', async () => {
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as { paths: Record<string, object> };
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
    );
    for (const route of [
      'GET /docs',
      'GET /docs/openapi.json',
      'GET /docs/{asset}',
      'GET /metrics',
      'POST /v1/diagnostics/echo',
      'GET /v1/diagnostics/counters/{key}',
      'POST /v1/api-keys',
      'DELETE /v1/api-keys/{id}',
      'POST /v1/vouchers/{id}/revoke',
      'POST /v1/surveys/{id}/responses/{responseId}/verification',
    ]) {
      expect(documented).toContain(route);
    }
    // A route that is not served is not documented either.
    const probe = await fetch(`${base}/v1/diagnostics/echo`, { method: 'GET' });
    expect(probe.status).toBe(405);
    expect(documented).not.toContain('GET /v1/diagnostics/echo');
  });

  it('documents how each route authenticates, the one error body, Idempotency-Key and SSE answers', async () => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- reading the JSON document
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as any;
    const ucan = [{ ucanInvocation: [], ucanSelector: [] }, { ucanDelegation: [] }];
    expect(doc.paths['/sessions'].post.security).toEqual(ucan);
    expect(doc.paths['/messages/{sessionId}'].post.security).toEqual(ucan);
    expect(doc.paths['/'].get.security).toEqual([]); // the landing is public
    expect(doc.paths['/v1/vouchers/redeem'].post.security).toBeUndefined(); // the document's default: an API key
    expect(doc.components.securitySchemes.ucanDelegation).toMatchObject({ in: 'header', name: 'x-ucan-delegation' });
    expect(doc.components.schemas.Error.required).toEqual(['statusCode', 'message', 'error']);
    const names = (op: { parameters: Array<{ name: string }> }) => op.parameters.map((p) => p.name);
    expect(names(doc.paths['/v1/vouchers/redeem'].post)).toContain('Idempotency-Key');
    expect(names(doc.paths['/sessions'].post)).not.toContain('Idempotency-Key');
    expect(names(doc.paths['/api/ussd'].post)).not.toContain('Idempotency-Key');
    expect(Object.keys(doc.paths['/messages/{sessionId}'].post.responses['200'].content)).toEqual([
      'application/json',
      'text/event-stream',
    ]);
    expect(doc.paths['/messages/{sessionId}/stream'].get.responses['200'].content['text/event-stream'].schema).toEqual({
      type: 'string',
    });
  });

  it('marks Idempotency-Key required on exactly the routes that refuse a request without it', async () => {
    type Op = {
      parameters: Array<{ name: string; required: boolean }>;
      responses: Record<string, { description: string }>;
    };
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Op>>;
    };
    const required = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => op.parameters.some((p) => p.name === 'Idempotency-Key' && p.required))
        .map(([method]) => `${method.toUpperCase()} ${path}`),
    );
    expect(required.sort()).toEqual(keyRequired.map((r) => `POST ${r.path}`).sort());
    const a = api(hearth.port);
    const keys = {
      supplier: (await setUpScheme(a)).supplierKey,
      implementer: (await conversionParties(a)).implementerKey,
    };
    for (const r of keyRequired) {
      const refused = await a.call('POST', r.url ?? r.path, { key: keys[r.as], body: r.body });
      expect(refused.status, r.path).toBe(400);
      expect(refused.body.error.code, r.path).toBe('IDEMPOTENCY_KEY_REQUIRED');
      expect(doc.paths[r.path]!.post!.responses['400']!.description, r.path).toContain('`IDEMPOTENCY_KEY_REQUIRED`');
    }
    // Elsewhere the header is optional, and a request without it is served.
    const optional = doc.paths['/v1/households']!.post!.parameters.find((p) => p.name === 'Idempotency-Key');
    expect(optional?.required).toBe(false);
    expect((await a.call('POST', '/v1/households', { body: { did: newDidKey() } })).status).toBe(201);
  });

  it('names every operation once, gives every JSON success its schema and every error the error body', async () => {
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      servers: unknown;
      paths: Record<string, Record<string, Operation>>;
    };
    expect(doc.servers).toEqual([{ url: '/', description: 'This gateway' }]);
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ name: `${method.toUpperCase()} ${path}`, op })),
    );
    const ids = ops.map(({ name, op }) => op.operationId ?? `(none: ${name})`);
    for (const id of ids) expect(id).toMatch(/^[a-z][A-Za-z0-9]*$/);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    for (const { name, op } of ops) {
      for (const [status, answer] of Object.entries(op.responses)) {
        for (const [type, { schema }] of Object.entries(answer.content ?? {})) {
          const where = `${name} ${status} ${type}`;
          if (status === 'default' || Number(status) >= 400) {
            // The error body, by reference, or beside a body of the route's own (health's 503).
            const refs = (schema.anyOf as unknown[] | undefined) ?? [schema];
            expect(refs, where).toContainEqual({ $ref: '#/components/schemas/Error' });
          } else if (/json/.test(type)) {
            expect(schema, where).not.toEqual({});
          }
        }
      }
    }
  });

  it('documents what the routes really answer: their answers pass the schemas the document is built from', async () => {
    const doc = (await (await fetch(`${base}/docs/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const a = api(hearth.port);
    const household = newDidKey();
    const certificate = {
      id: 'cert-docs',
      projectId: 'did:ixo:entity:docs',
      verifiedReduction: 250,
      status: 'verified',
      monitoringPlan: { approvedProducts: ['stove'], acceptedCredentialTypes: ['Delivery'], claimWindowDays: 30 },
    };
    expect((await a.call('POST', '/v1/households', { body: { did: household } })).status).toBe(201);
    expect((await a.call('POST', '/v1/certificates', { body: certificate })).status).toBe(201);
    const issued = await a.call('POST', '/v1/vouchers/issue', {
      body: {
        recipientDid: household,
        emissionCertificateId: certificate.id,
        value: 250,
        attributes: { batchId: 'docs', issuanceDate: '2026-01-01', expiryDate: '2027-12-31' },
      },
    });
    expect(issued.status).toBe(201);
    await a.call('POST', '/v1/diagnostics/counters/docs', { body: { by: 2 } });
    // Route, its success, and the zod schema the route's doc names: the document shows that
    // schema, and a real answer passes it (strict: a field the schema lacks fails too).
    const checks: Array<[string, string, string, z.ZodType]> = [
      ['GET', `/v1/vouchers/${issued.body.id}`, '/v1/vouchers/{id}', voucherViewSchema],
      ['GET', `/v1/vouchers/${issued.body.code}`, '/v1/vouchers/{id}', voucherViewSchema],
      ['GET', '/v1/vouchers?limit=5', '/v1/vouchers', pageOf(voucherViewSchema)],
      ['GET', `/v1/households/${household}`, '/v1/households/{id}', registryRecords.household],
      ['GET', '/v1/households', '/v1/households', pageOf(registryRecords.household)],
      ['GET', `/v1/certificates/${certificate.id}`, '/v1/certificates/{id}', registryRecords.certificate],
      ['GET', '/v1/api-keys', '/v1/api-keys', z.strictObject({ items: z.array(apiKeyRecordSchema) })],
      ['GET', '/v1/ledger/blocks', '/v1/ledger/blocks', pageOf(blockViewSchema)],
      ['GET', '/v1/diagnostics/counters/docs', '/v1/diagnostics/counters/{key}', counterStateSchema],
      ['GET', '/models', '/models', modelCatalogSchema],
      ['GET', '/health', '/health', healthBody],
    ];
    for (const [method, url, path, schema] of checks) {
      const answer = await a.call(method, url);
      expect(answer.status, `${method} ${url}`).toBe(200);
      expect(schema.safeParse(answer.body).error?.issues, `${method} ${url}`).toBeUndefined();
      const documented = doc.paths[path]?.[method.toLowerCase()]?.responses['200']?.content?.['application/json'];
      expect(documented?.schema, `${method} ${path}`).toEqual(asDocumented(schema));
    }
  });

  it('keeps src/version.ts equal to package.json', () => {
    expect(version).toBe((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version);
  });
});
