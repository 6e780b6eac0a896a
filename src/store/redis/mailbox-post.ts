import { type Keys } from './keys.js';
import type { ActorMessage } from '../../actors/runtime/asker.js';
import { addressedEntry } from '../../actors/runtime/addressed-entry.js';

/**
 * The mailbox stream a message to `type`/`key` goes to (its partition's) and the entry's fields
 * ({@link addressedEntry}): the gateway's asks and the outbox relay's tells.
 */
export function mailboxEntry(
  keys: Keys,
  partitionsOf: (type: string) => number,
  to: { type: string; key: string },
  msg: ActorMessage,
  reply = '',
  corr = '',
): { stream: string; fields: string[] } {
  const { partition, fields } = addressedEntry(partitionsOf, to, msg, reply, corr);
  return { stream: keys.mailbox(to.type, partition), fields };
}
