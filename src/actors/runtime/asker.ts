import type { ActorRef } from './actor-ref.js';

/** Any message of an actor's union: a `kind` and its fields. */
export type ActorMessage = { kind: string } & Record<string, unknown>;

/**
 * The gateway side of the runtime, as the products see it: `tell()` posts to an actor's mailbox,
 * `ask()` also waits for the actor's reply until a deadline. Redis streams carry it in a
 * deployment (`store/redis/actor-client.ts`), memory in the product tier's tests
 * (`memory-actor-client.ts`); a product never knows which.
 */
export interface Asker {
  /**
   * With an {@link ActorRef} the message is checked against the actor's union and the reply is
   * typed by its kind; a bare type name (tests, the diagnostic actors) answers `unknown`.
   */
  ask<M extends { kind: string }, R extends { [K in M['kind']]: unknown }, K extends M['kind']>(
    actor: ActorRef<M, R>,
    key: string,
    msg: M & { kind: K },
    timeoutMs?: number,
  ): Promise<R[K]>;
  ask<R = unknown>(type: string, key: string, msg: ActorMessage, timeoutMs?: number): Promise<R>;
  /** Posts without waiting for an answer; resolves with the entry's id once it is in the mailbox. */
  tell(type: string, key: string, msg: ActorMessage): Promise<string>;
  /** Refuses new asks, fails the waiting ones. Idempotent. */
  close(): Promise<void>;
}
