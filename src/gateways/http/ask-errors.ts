import type { ErrorCode } from '../../errors/index.js';

/**
 * What a route that asks an actor can answer besides the actor's own refusals: no answer in
 * time, too many asks in flight, the message dead-lettered (store/redis/actor-client.ts).
 */
export const askErrors = ['ASK_TIMEOUT', 'OVERLOADED', 'ACTOR_FAILED'] as const satisfies readonly ErrorCode[];
