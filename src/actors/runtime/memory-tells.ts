import type { Asker } from './asker.js';
import { TELL_TOPIC, type BatchCommit } from './ports.js';
import type { ActorMessage } from './asker.js';
import type { Logger } from '../../log.js';

/**
 * The outbox relay of a runtime on memory: the tells of each batch committed, posted at once in
 * the order they were written. Nothing can die between the commit and the post in one process,
 * so none is posted twice. For the product tier's tests; deployments post through Redis
 * (store/redis/outbox-relay.ts), from rows that outlive a crash.
 */
export function memoryTells(client: Pick<Asker, 'tell'>, log: Logger): (batch: BatchCommit) => void {
  return (batch) => {
    for (const o of batch.outbox) {
      if (o.topic !== TELL_TOPIC) continue;
      const { type, key, message } = o.payload as { type: string; key: string; message: ActorMessage };
      client
        .tell(type, key, message)
        .catch((err: unknown) =>
          log.error({ err: err instanceof Error ? err.message : String(err), type, key }, 'a tell could not be posted'),
        );
    }
  };
}
