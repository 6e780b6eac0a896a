import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { adminKey, api, type Api } from '../../../support/api.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { issueVoucher, setUpScheme, type Scheme } from '../../../support/voucher-fixtures.js';

/** A small seeded PRNG (mulberry32), so a failing case can be replayed. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const odd = [
  '',
  ' ',
  '\u202e',
  '😀'.repeat(50),
  '<script>',
  "'; drop table vouchers; --",
  '../../etc/passwd',
  'a'.repeat(5000),
  '%00',
  'did:key:z',
];
const numbers = [0, -0, -1, 1e308, -1e308, 0.1 + 0.2, 1e-7, 2 ** 53 + 1, 123.4567891];

function value(r: () => number, depth = 0): unknown {
  const pick = <T>(xs: T[]): T => xs[Math.floor(r() * xs.length)]!;
  switch (Math.floor(r() * (depth > 3 ? 5 : 7))) {
    case 0:
      return pick(odd);
    case 1:
      return pick(numbers);
    case 2:
      return r() < 0.5;
    case 3:
      return null;
    case 4:
      return pick(['active', 'verified', 'BaselineSurvey', 'stove-1']);
    case 5:
      return Array.from({ length: Math.floor(r() * 4) }, () => value(r, depth + 1));
    default: {
      const keys = [
        'recipientDid',
        'emissionCertificateId',
        'value',
        'attributes',
        'voucherId',
        'supplierDid',
        'amount',
        'productId',
        'redemptionId',
        'verifiableCredential',
        'type',
        'projectId',
        'template',
        'sampling',
        'householdId',
        'responses',
        'did',
        'name',
        'id',
        'role',
        'extra',
      ];
      return Object.fromEntries(Array.from({ length: Math.floor(r() * 6) }, () => [pick(keys), value(r, depth + 1)]));
    }
  }
}

describe('bad input never gets a 500', () => {
  let env: Isolated;
  let hearth: Hearth;
  let a: Api;
  let s: Scheme;
  let surveyId = '';

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(
      env.config({ HEARTH_ADMIN_KEY: adminKey, ACTOR_PARTITIONS: '2', MAX_BODY_BYTES: '65536' }),
      env.log,
    );
    a = api(hearth.port);
    s = await setUpScheme(a);
    await issueVoucher(a, s, 'cert-fuzz', 100);
    surveyId = (
      await a.call('POST', '/v1/surveys', {
        key: s.implementerKey,
        body: {
          type: 'BaselineSurvey',
          projectId: 'did:ixo:p',
          template: {
            eligibilityCriteria: true,
            socioEconomicData: false,
            cookingPatterns: false,
            stovePerceptions: false,
          },
          sampling: { method: 'random', size: 10, confidence: 0.9 },
        },
      })
    ).body.id;
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('answers 4xx with the error body to 2,000 random bodies across every POST and PATCH', async () => {
    const r = prng(20261122);
    const targets: Array<[string, string, () => string]> = [
      ['POST', '/v1/vouchers/issue', () => s.implementerKey],
      ['POST', '/v1/vouchers/redeem', () => s.supplierKey],
      ['POST', '/v1/claims', () => s.supplierKey],
      ['POST', '/v1/surveys', () => s.implementerKey],
      ['POST', `/v1/surveys/${surveyId}/responses`, () => s.implementerKey],
      ['POST', '/v1/households', () => s.implementerKey],
      ['POST', '/v1/suppliers', () => s.implementerKey],
      ['POST', '/v1/products', () => s.implementerKey],
      ['POST', '/v1/certificates', () => s.implementerKey],
      ['POST', '/v1/api-keys', () => adminKey],
      ['PATCH', '/v1/certificates/cert-fuzz', () => s.implementerKey],
    ];
    const failures: string[] = [];
    for (let i = 0; i < 2000; i++) {
      const [method, path, key] = targets[i % targets.length]!;
      const roll = r();
      const body = roll < 0.05 ? '{"unterminated": ' : roll < 0.08 ? 'x'.repeat(70_000) : JSON.stringify(value(r));
      const res = await a.call(method, path, { key: key(), body });
      const ok = res.status < 500 && (res.status < 400 || typeof res.body?.error?.code === 'string');
      if (!ok)
        failures.push(
          `${method} ${path} ${res.status} ${body.slice(0, 120)} → ${JSON.stringify(res.body).slice(0, 200)}`,
        );
    }
    expect(failures).toEqual([]);
  });

  it('answers 4xx to odd path and query parameters', async () => {
    const paths = [
      '/v1/vouchers/%ZZ',
      '/v1/vouchers/' + 'x'.repeat(3000),
      '/v1/vouchers?limit=-1',
      '/v1/vouchers?limit=1e309',
      '/v1/vouchers?limit=abc&limit=2',
      '/v1/vouchers?status=',
      '/v1/vouchers?unknown=1',
      '/v1/households/%F0%9F%98%80',
      '/v1/surveys/%00/responses',
      '/v1/claims?offset=99999999999',
    ];
    for (const p of paths) {
      const res = await a.call('GET', p, { key: s.implementerKey });
      expect(res.status, p).toBeGreaterThanOrEqual(400);
      expect(res.status, p).toBeLessThan(500);
    }
  });
});
