import type { ActorMessage } from './runtime/mailbox-post.js';
import type { OutboxEffect } from './runtime/types.js';

/** The outbox topic whose rows the outbox relay posts to actors' mailboxes (outbox-relay.ts). */
export const TELL_TOPIC = 'tell';

/**
 * A message to another actor, sent only once this actor's state is committed: written to the
 * outbox in the same commit, and posted by the outbox relay, at least once. The receiver must
 * apply a repeat as a no-op, so the message carries an id of its own for that (a saga step's).
 */
export function tellEffect(to: { type: string; key: string }, message: ActorMessage): OutboxEffect {
  return { topic: TELL_TOPIC, payload: { type: to.type, key: to.key, message } };
}
