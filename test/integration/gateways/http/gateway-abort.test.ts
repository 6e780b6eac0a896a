import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionOf } from '../../../../src/actors/runtime/partitioning.js';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';

/** Sends raw bytes and closes the socket after `closeAfterMs`, as a client that gives up. */
function sendAndHangUp(port: number, raw: string, closeAfterMs: number): Promise<string> {
  return new Promise((resolve) => {
    let received = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(raw));
    socket.on('data', (d) => (received += d.toString()));
    socket.on('error', () => undefined);
    setTimeout(() => {
      socket.destroy();
      resolve(received);
    }, closeAfterMs);
  });
}

describe('HTTP gateway with clients that go away', () => {
  let env: Isolated;
  let hearth: Hearth;

  beforeAll(async () => {
    env = await isolated();
    // A gateway with no worker: every ask waits for its deadline, so the reply comes late.
    hearth = await startHearth(
      env.config({ ROLE: 'gateway', HEARTH_DIAGNOSTICS: 'true', ASK_TIMEOUT_MS: '300' }),
      env.log,
    );
  });

  afterAll(async () => {
    await hearth.close();
    await env.cleanup();
  });

  it('survives a client that hangs up while its ask is in flight, and keeps serving', async () => {
    const body = JSON.stringify({ key: 'gone', payload: 1 });
    const raw = `POST /v1/diagnostics/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const hangUps = await Promise.all(Array.from({ length: 20 }, () => sendAndHangUp(hearth.port, raw, 50)));
    expect(hangUps.every((r) => r === '')).toBe(true); // nobody got an answer before hanging up
    // The asks time out now, and their answers must not be written to the closed connections.
    const metrics = async () => (await fetch(`http://127.0.0.1:${hearth.port}/metrics`)).text();
    const timedOut = async () =>
      Number(/^hearth_asks_timed_out_total\{type="echo"\} (\d+)$/m.exec(await metrics())?.[1] ?? 0);
    expect(await eventually(timedOut, (n) => n >= 20, 10_000, 20)).toBeGreaterThanOrEqual(20);
    const res = await fetch(`http://127.0.0.1:${hearth.port}/health`);
    expect(res.status).toBe(200);
  });

  it('forgets a request whose client hung up in the middle of its body (shutdown does not wait for it)', async () => {
    const second = await startHearth(env.config({ ROLE: 'gateway', HEARTH_DIAGNOSTICS: 'true' }), env.log);
    const raw =
      'POST /v1/diagnostics/echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"key":"half';
    await sendAndHangUp(second.port, raw, 50);
    expect((await fetch(`http://127.0.0.1:${second.port}/health`)).status).toBe(200);
    const started = Date.now();
    await second.close(); // SHUTDOWN_GRACE_MS is 10 s: a request left waiting for its body would hold it that long
    expect(Date.now() - started).toBeLessThan(3_000);
  });

  it('answers the late ask with 504 ASK_TIMEOUT when the client waits', async () => {
    const res = await fetch(`http://127.0.0.1:${hearth.port}/v1/diagnostics/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'late', payload: 1 }),
    });
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('ASK_TIMEOUT');
  });

  it('finishes a request in flight when shutdown begins, then stops listening', async () => {
    const config = env.config({ ROLE: 'gateway', HEARTH_DIAGNOSTICS: 'true', ASK_TIMEOUT_MS: '400' });
    const second = await startHearth(config, env.log);
    const inFlight = fetch(`http://127.0.0.1:${second.port}/v1/diagnostics/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ key: 'drain', payload: 1 }),
    });
    // In flight: its ask is in the mailbox (no worker will answer it).
    const mailbox = env.keys.mailbox('echo', partitionOf('drain', config.ACTOR_PARTITIONS));
    const asked = async () => (await env.redis.xrange(mailbox, '-', '+')).some(([, f]) => f[1] === 'drain');
    expect(await eventually(asked, Boolean, 10_000, 10)).toBe(true);
    const closing = second.close();
    const res = await inFlight;
    expect(res.status).toBe(504); // answered (the ask timed out), not dropped
    await closing;
    await expect(fetch(`http://127.0.0.1:${second.port}/health`)).rejects.toThrow();
  });
});
