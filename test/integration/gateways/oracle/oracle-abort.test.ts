import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHearth, type Hearth } from '../../../../src/hearth.js';
import type { Agent } from '../../../../src/gateways/oracle/agent/agent.js';
import { runTurn } from '../../../../src/gateways/oracle/agent/turn-runner.js';
import { ChatEventHub, requestAbort } from '../../../../src/gateways/oracle/agent/chat-events.js';
import { connectRedis, createRedis, type RedisClient } from '../../../../src/store/redis/redis.js';
import { eventually, isolated, type Isolated } from '../../../support/isolated.js';
import { chatKeys } from '../../../../src/gateways/oracle/chat-keys.js';

/** An agent that talks slowly: 200 tokens, 5 ms apart, stopping when told. */
const slowAgent: Agent = {
  async run(turn, sink) {
    let content = '';
    for (let i = 0; i < 200 && !turn.signal.aborted; i++) {
      content += `t${i} `;
      await sink.token(`t${i} `);
      // A sleep on purpose: the pace of a model, so the abort lands mid-turn.
      await new Promise((r) => setTimeout(r, 5));
    }
    return { content, toolCalls: [] };
  },
};

describe('oracle: aborting a turn from another process', () => {
  let env: Isolated;
  let hearth: Hearth;
  let redis: RedisClient;
  let hub: ChatEventHub;

  beforeAll(async () => {
    env = await isolated();
    hearth = await startHearth(env.config({ ACTOR_PARTITIONS: '2' }), env.log);
    redis = await connectRedis(createRedis(env.redisUrl, 'test-abort'), env.redisUrl);
    hub = new ChatEventHub(
      (name) => createRedis(env.redisUrl, `test-${name}`, { blocking: true }),
      env.keys,
      env.log,
      env.cluster,
    );
  });

  afterAll(async () => {
    await hub.close();
    redis.disconnect();
    await hearth.close();
    await env.cleanup();
  });

  it('stops the agent at its next token, keeps what was said, and still ends the stream with done', async () => {
    const did = 'did:key:z6MkTestAbort';
    await hearth.client!.ask('chat', 'sess-abort', {
      kind: 'create',
      ownerDid: did,
      oracleName: 'o',
      oracleDid: 'did:key:o',
    });
    await redis.set(chatKeys.turn(env.keys, 'sess-abort'), 'req-1');
    const turn = runTurn(
      {
        client: hearth.client!,
        redis,
        keys: env.keys,
        agent: slowAgent,
        log: env.log,
        hub,
        history: () => Promise.resolve({ messages: [], omitted: 0 }),
      },
      { sessionId: 'sess-abort', requestId: 'req-1', did, message: 'talk', from: '0' },
    );
    const tokens = async () =>
      (await env.redis.xrange(chatKeys.events(env.keys, 'sess-abort'), '-', '+')).filter(
        (e) => e[1][1] === 'req-1' && e[1][3] === 'message',
      ).length;
    // The agent has said something before it is stopped.
    expect(await eventually(tokens, (n) => n > 0, 10_000, 10)).toBeGreaterThan(0);
    // What POST /messages/abort does on whichever gateway receives it.
    await requestAbort(env.redis, env.keys, 'sess-abort', 'req-1');
    const result = await turn;
    expect(result.aborted).toBe(true);
    const said = result.content.split(' ').filter(Boolean).length;
    expect(said).toBeGreaterThan(0);
    expect(said).toBeLessThan(200);
    const events = (await env.redis.xrange(chatKeys.events(env.keys, 'sess-abort'), '-', '+'))
      .filter((e) => e[1][1] === 'req-1')
      .map((e) => e[1][3]);
    expect(events.at(-1)).toBe('done');
    expect(events.filter((e) => e === 'message')).toHaveLength(said);
    expect(await env.redis.exists(chatKeys.turn(env.keys, 'sess-abort'))).toBe(0); // the session is free again
  });
});
