import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { isolated, type Isolated } from '../../../support/isolated.js';

describe('CORS (spec 001 table)', () => {
  let env: Isolated;
  let open: Hearth;
  let strict: Hearth;

  beforeAll(async () => {
    env = await isolated();
    open = await startHearth(env.config({ ROLE: 'gateway', ACTOR_PARTITIONS: '2' }), env.log);
    strict = await startHearth(
      env.config({
        ROLE: 'gateway',
        ACTOR_PARTITIONS: '2',
        CORS_ORIGIN: 'https://portal.example, https://app.example',
      }),
      env.log,
      { migrate: false },
    );
  });

  afterAll(async () => {
    await open.close();
    await strict.close();
    await env.cleanup();
  });

  const at = (h: Hearth, path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${h.port}${path}`, init);

  it('allows any origin by default, without credentials, and exposes X-Request-Id', async () => {
    const r = await at(open, '/health', { headers: { origin: 'https://anywhere.example' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-credentials')).toBeNull();
    expect(r.headers.get('access-control-expose-headers')).toBe('X-Request-Id');
  });

  it('answers a preflight on any path with the allowed methods and headers', async () => {
    const r = await at(open, '/sessions', {
      method: 'OPTIONS',
      headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'POST' },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE, PATCH, OPTIONS');
    const allowed = (r.headers.get('access-control-allow-headers') ?? '').split(', ');
    for (const h of ['Authorization', 'x-ucan-delegation', 'x-auth-type', 'x-timezone', 'x-request-id', 'x-did']) {
      expect(allowed).toContain(h);
    }
  });

  it('with specific origins, echoes a listed one with credentials and grants nothing to others', async () => {
    const listed = await at(strict, '/health', { headers: { origin: 'https://app.example' } });
    expect(listed.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(listed.headers.get('access-control-allow-credentials')).toBe('true');
    expect(listed.headers.get('vary')).toBe('Origin');
    const other = await at(strict, '/health', { headers: { origin: 'https://evil.example' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    expect(other.headers.get('access-control-allow-credentials')).toBeNull();
  });
});

describe('landing (spec 001)', () => {
  it('answers GET / publicly with status, message and timestamp, ignoring a bad auth header', async () => {
    const env = await isolated();
    const h = await startHearth(env.config({ ROLE: 'gateway', ACTOR_PARTITIONS: '2' }), env.log);
    try {
      const r = await fetch(`http://127.0.0.1:${h.port}/`, {
        headers: { authorization: 'Bearer nonsense', 'x-auth-type': 'ucan' },
      });
      expect(r.status).toBe(200);
      const body = (await r.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['message', 'status', 'timestamp']);
      expect(body.status).toBe('ok');
    } finally {
      await h.close();
      await env.cleanup();
    }
  });
});
