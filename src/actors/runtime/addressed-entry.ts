import type { ActorMessage } from './asker.js';
import { encodeEntry } from './entry-codec.js';
import { partitionOf } from './partitioning.js';

/**
 * Which partition of its type a message to `type`/`key` goes to, and the entry's fields (`reply`
 * and `corr` empty for a tell). One place for every sender (the gateways' asks, the outbox
 * relay's tells, in Redis or in memory), so all address a key's partition the same way.
 */
export function addressedEntry(
  partitionsOf: (type: string) => number,
  to: { type: string; key: string },
  msg: ActorMessage,
  reply = '',
  corr = '',
): { partition: number; fields: string[] } {
  return {
    partition: partitionOf(to.key, partitionsOf(to.type)),
    fields: encodeEntry({ key: to.key, kind: msg.kind, body: JSON.stringify(msg), reply, corr, ts: Date.now() }),
  };
}
