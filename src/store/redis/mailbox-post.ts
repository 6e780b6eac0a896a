import { encodeEntry } from '../../actors/runtime/entry-codec.js';
import { type Keys } from './keys.js';
import { partitionOf } from '../../actors/runtime/partitioning.js';

/** Any message of an actor's union: a `kind` and its fields. */
export type ActorMessage = { kind: string } & Record<string, unknown>;

/**
 * Where a message to `type`/`key` goes and what it holds: the mailbox of the key's partition,
 * and the entry's fields (`reply` and `corr` empty for a tell). One place for the gateway's asks
 * and the outbox relay's tells, so both address a key's partition the same way.
 */
export function mailboxEntry(
  keys: Keys,
  partitionsOf: (type: string) => number,
  to: { type: string; key: string },
  msg: ActorMessage,
  reply = '',
  corr = '',
): { stream: string; fields: string[] } {
  return {
    stream: keys.mailbox(to.type, partitionOf(to.key, partitionsOf(to.type))),
    fields: encodeEntry({ key: to.key, kind: msg.kind, body: JSON.stringify(msg), reply, corr, ts: Date.now() }),
  };
}
