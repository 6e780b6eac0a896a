import { createServer, Socket, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { NodePipe, type PipedCommand } from '../../../../src/store/redis/node-pipe.js';
import { isolated, onCluster, type Isolated } from '../../../support/isolated.js';

/**
 * Sends commands on a pipe as one batch (one write); each settles as its reply (an Error for an
 * error reply) or its failure.
 */
function send(pipe: NodePipe, commands: ReadonlyArray<ReadonlyArray<string | number>>): Promise<unknown[]> {
  const batch: PipedCommand[] = [];
  const answers = commands.map(
    (args) =>
      new Promise<unknown>((resolve) => {
        batch.push({ args, answer: resolve, fail: (err) => resolve({ failed: err.message }) });
      }),
  );
  pipe.send(batch);
  return Promise.all(answers);
}

/**
 * The runtime's own connection to one Redis node (a cluster's hot path: node-batch.ts), against
 * the real Redis of the one-Redis pass: replies matched to commands in order, error replies as
 * values, and every command in flight failed when the connection fails or stops answering.
 */
describe.skipIf(onCluster)('NodePipe', () => {
  let env: Isolated;
  let host: string;
  let port: number;
  const pipes: NodePipe[] = [];
  const pipe = (opts: Partial<ConstructorParameters<typeof NodePipe>[2]> = {}, at = port) => {
    const p = new NodePipe(host, at, { connectionName: 'pipe-test', timeoutMs: 2_000, ...opts });
    pipes.push(p);
    return p;
  };

  beforeAll(async () => {
    env = await isolated();
    const url = new URL(env.redisUrl);
    host = url.hostname;
    port = Number(url.port || 6379);
  });

  afterAll(async () => {
    for (const p of pipes) p.close();
    await env.cleanup();
  });

  it('answers each command of a batch in order, an error reply as an Error, multi-byte text intact', async () => {
    const p = pipe();
    const key = `${env.keys.meta}:pipe-order`;
    const [added, wrong, range, count] = await send(p, [
      ['XADD', key, '*', 'text', 'Mwalandiridwa — ñ ✓'],
      ['INCR', key],
      ['XRANGE', key, '-', '+'],
      ['XLEN', key],
    ]);
    expect(added).toMatch(/^\d+-\d+$/);
    expect(wrong).toBeInstanceOf(Error);
    expect((wrong as Error).message).toMatch(/^WRONGTYPE/);
    expect(range).toEqual([[added, ['text', 'Mwalandiridwa — ñ ✓']]]);
    expect(count).toBe(1);
    const [name] = await send(p, [['CLIENT', 'GETNAME']]);
    expect(name).toBe('pipe-test');
  });

  it('writes the batches of one turn in one socket write, each answered in turn', async () => {
    const p = pipe();
    await send(p, [['PING']]); // connected, its hello written
    const key = `${env.keys.meta}:pipe-turn`;
    const writes = vi.spyOn(Socket.prototype, 'write');
    try {
      const answers = Promise.all([
        send(p, [['INCR', key]]),
        send(p, [
          ['INCR', key],
          ['INCR', key],
        ]),
        send(p, [['GET', key]]),
      ]);
      // The pipe's writes (the test runner's own sockets write too).
      const pipeWrites = () => writes.mock.calls.filter(([data]) => String(data).includes(key));
      expect(pipeWrites()).toHaveLength(0); // nothing written before the turn's check phase
      expect(await answers).toEqual([[1], [2, 3], ['3']]);
      expect(pipeWrites()).toHaveLength(1);
    } finally {
      writes.mockRestore();
    }
  });

  it('fails every command when the node cannot be reached', async () => {
    const closed = await new Promise<Server>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
    const deadPort = (closed.address() as { port: number }).port;
    await new Promise((r) => closed.close(r));
    const p = pipe({}, deadPort);
    const answers = await send(p, [['PING'], ['PING']]);
    expect(answers).toEqual([
      { failed: expect.stringMatching(/ECONNREFUSED/) },
      { failed: expect.stringMatching(/ECONNREFUSED/) },
    ]);
  });

  it('fails what is in flight after its timeout, keeps the connection, and skips the late reply', async () => {
    const p = pipe({ timeoutMs: 400 });
    const key = `${env.keys.meta}:pipe-late`;
    const started = Date.now();
    const [blocked] = await send(p, [['BLPOP', key, '0.6']]);
    expect(blocked).toEqual({ failed: expect.stringMatching(/no reply within 400 ms/) });
    expect(Date.now() - started).toBeLessThan(1_000);
    // Sent behind the timed-out command on the same connection: Redis runs it after that one
    // (whose late nil reply is skipped), so this answer is its own.
    const [id] = await send(p, [['CLIENT', 'ID']]);
    expect(typeof id).toBe('number');
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    expect(await send(p, [['CLIENT', 'ID']])).toEqual([id]);
  });

  it('fails the commands written behind a refused AUTH', async () => {
    // This Redis has no password: AUTH is refused, as a wrong password would be.
    const p = pipe({ password: 'not-the-password' });
    const answers = await send(p, [['PING']]);
    expect(answers[0]).toEqual({ failed: expect.stringMatching(/AUTH|password/i) });
  });

  it('refuses batches once closed', async () => {
    const p = pipe();
    p.close();
    expect(await send(p, [['PING']])).toEqual([{ failed: 'Redis node connection closed' }]);
  });
});
