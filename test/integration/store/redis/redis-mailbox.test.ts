import type { RedisClient } from '../../../../src/store/redis/redis.js';
import { afterAll, beforeAll } from 'vitest';
import type { Mailbox } from '../../../../src/actors/runtime/ports.js';
import { decodeReply } from '../../../../src/actors/runtime/entry-codec.js';
import { connectRedis, createRedis } from '../../../../src/store/redis/redis.js';
import { redisMailboxFor } from '../../../../src/store/redis/mailbox-for.js';
import { MailboxWriter } from '../../../../src/store/redis/mailbox-writer.js';
import { isolated, type Isolated } from '../../../support/isolated.js';
import { entryFields, mailboxSuite } from '../../../support/mailbox-suite.js';

let env: Isolated;
let shared: RedisClient;
let writer: MailboxWriter;
const blocking: RedisClient[] = [];
const mailboxes: Mailbox[] = [];
beforeAll(async () => {
  env = await isolated();
  shared = await connectRedis(createRedis(env.redisUrl, 'suite-shared', { log: env.log }), env.redisUrl);
  writer = new MailboxWriter(shared);
});
afterAll(async () => {
  for (const m of mailboxes) m.close();
  for (const b of blocking) b.disconnect();
  shared.disconnect();
  await env.cleanup();
});

mailboxSuite('Redis streams', () => ({
  mailbox: (type, consumer) => {
    const mailbox = redisMailboxFor({ type, keys: env.keys, redis: shared, consumer, log: env.log }, () => {
      const b = createRedis(env.redisUrl, `suite-${consumer}`, { blocking: true, log: env.log });
      blocking.push(b);
      return b;
    });
    mailboxes.push(mailbox);
    return mailbox;
  },
  // As a gateway writes (on a cluster, with the mailbox's bell after the entry).
  send: (type, partition, key) => writer.write(env.keys.mailbox(type, partition), entryFields(key)),
  openReplies: async (name) => {
    const stream = env.keys.replies(name);
    await env.redis.xgroup('CREATE', stream, 'probe', '$', 'MKSTREAM'); // makes the stream exist
    return stream;
  },
  replies: async (stream) => (await env.redis.xrange(stream, '-', '+')).map(([, fields]) => decodeReply(fields).corr),
  deadLetters: async (type) =>
    (await env.redis.xlen(env.keys.deadLetter(type, 0))) + (await env.redis.xlen(env.keys.deadLetter(type, 1))),
  idle: (ms) => new Promise((r) => setTimeout(r, ms)), // Redis's own clock: real time has to pass
}));
