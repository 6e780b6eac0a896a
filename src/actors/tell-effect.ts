import type { ActorMessage } from './runtime/asker.js';
import { TELL_TOPIC } from './runtime/ports.js';
import type { OutboxEffect } from './runtime/types.js';

/**
 * A message to another actor, sent only once this actor's state is committed: written to the
 * outbox in the same commit, and posted by the outbox relay, at least once. The receiver must
 * apply a repeat as a no-op, so the message carries an id of its own for that (a saga step's).
 */
export function tellEffect(to: { type: string; key: string }, message: ActorMessage): OutboxEffect {
  return { topic: TELL_TOPIC, payload: { type: to.type, key: to.key, message } };
}
