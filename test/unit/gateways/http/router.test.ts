import { describe, expect, it } from 'vitest';
import { json } from '../../../../src/gateways/http/reply.js';
import { Router } from '../../../../src/gateways/http/router.js';

const ok = () => json(200, {});
const doc = { operationId: 'testRoute', summary: 'test route', tag: 'test', responses: { 200: 'ok' } };

describe('Router', () => {
  const router = new Router()
    .add({ method: 'GET', path: '/messages/:sessionId', handler: ok, doc })
    .add({ method: 'POST', path: '/messages/:sessionId', handler: ok, doc })
    .add({ method: 'POST', path: '/messages/abort', handler: ok, doc })
    .add({ method: 'GET', path: '/v1/vouchers/:id/redemptions', handler: ok, doc });

  it('extracts and decodes path parameters', () => {
    const m = router.match('GET', '/messages/a%20b');
    expect(m).toMatchObject({ kind: 'found', params: { sessionId: 'a b' } });
  });

  it('prefers a static segment over a parameter', () => {
    const m = router.match('POST', '/messages/abort');
    expect(m.kind === 'found' && m.route.path).toBe('/messages/abort');
  });

  it('lists the allowed methods when only the method is wrong', () => {
    expect(router.match('DELETE', '/messages/x')).toEqual({
      kind: 'method-not-allowed',
      allowed: ['GET', 'POST'],
      path: '/messages/:sessionId',
    });
  });

  it('does not match on a different number of segments or a trailing part', () => {
    expect(router.match('GET', '/v1/vouchers/1').kind).toBe('not-found');
    expect(router.match('GET', '/v1/vouchers/1/redemptions/2').kind).toBe('not-found');
    expect(router.match('GET', '/v1/vouchers/1/redemptions').kind).toBe('found');
  });

  it('treats a malformed percent-escape as not found rather than throwing', () => {
    expect(router.match('GET', '/messages/%E0%A4%A').kind).toBe('not-found');
  });

  it('refuses the same route twice', () => {
    expect(() =>
      new Router()
        .add({ method: 'GET', path: '/a', handler: ok, doc })
        .add({ method: 'GET', path: '/a', handler: ok, doc }),
    ).toThrow(/registered twice/);
  });
});
