import { MemoryMailboxes } from '../../../../src/actors/runtime/memory-mailbox.js';
import { entryFields, mailboxSuite } from '../../../support/mailbox-suite.js';

let offset = 0;
const broker = new MemoryMailboxes(() => Date.now() + offset);

mailboxSuite('in memory', () => ({
  mailbox: (type, consumer) => broker.mailbox(type, consumer),
  send: (type, partition, key) => Promise.resolve(broker.send(type, partition, entryFields(key))),
  openReplies: (name) => {
    broker.openReplies(name);
    return Promise.resolve(name);
  },
  replies: (stream) => Promise.resolve((broker.replies.get(stream) ?? []).map((r) => r.corr)),
  deadLetters: (type) => Promise.resolve(broker.dead.get(type)?.length ?? 0),
  idle: (ms) => {
    offset += ms; // the broker's clock moves; nothing sleeps
    return Promise.resolve();
  },
}));
