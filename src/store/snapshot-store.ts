import type { OutboxRow, Slot } from '../actors/runtime/apply-batch.js';
import type { Sql } from './db.js';

/** A commit by a worker that no longer owns the partition (its epoch is not the current one). */
export class FencedError extends Error {
  override readonly name = 'FencedError';
}

export interface BatchCommit {
  type: string;
  partition: number;
  epoch: number;
  dirty: ReadonlyMap<string, Slot>;
  outbox: readonly OutboxRow[];
}

/** Where actor state lives between batches. */
export interface SnapshotStore {
  load(type: string, keys: readonly string[]): Promise<Map<string, Slot>>;
  /** Makes `owner` the fenced owner of a partition; returns its new epoch. */
  takeFence(type: string, partition: number, owner: string): Promise<number>;
  /** One transaction: fence check, every snapshot, every outbox row. Throws {@link FencedError}. */
  commit(batch: BatchCommit): Promise<void>;
}

interface SnapshotRow {
  key: string;
  version: string;
  state: unknown;
  last_msg_id: string;
}

export function createPgSnapshotStore(sql: Sql): SnapshotStore {
  return {
    async load(type, keys) {
      const slots = new Map<string, Slot>();
      if (keys.length === 0) return slots;
      const rows = await sql<SnapshotRow[]>`
        SELECT key, version, state, last_msg_id FROM actor_snapshots
        WHERE type = ${type} AND key = ANY(${sql.array(keys as string[])}::text[])`;
      for (const row of rows) {
        slots.set(row.key, {
          state: row.state === null ? undefined : row.state,
          version: Number(row.version),
          lastMsgId: row.last_msg_id,
        });
      }
      return slots;
    },

    async takeFence(type, partition, owner) {
      // The row lock of this upsert waits for the old owner's in-flight commits (FOR SHARE),
      // and every commit after it sees the new epoch.
      const [row] = await sql<{ epoch: string }[]>`
        INSERT INTO partition_fences (type, partition, epoch, owner)
        VALUES (${type}, ${partition}, 1, ${owner})
        ON CONFLICT (type, partition)
        DO UPDATE SET epoch = partition_fences.epoch + 1, owner = EXCLUDED.owner, updated_at = now()
        RETURNING epoch`;
      return Number(row?.epoch);
    },

    async commit({ type, partition, epoch, dirty, outbox }) {
      if (dirty.size === 0 && outbox.length === 0) return;
      await sql.begin(async (tx) => {
        const [fence] = await tx<{ epoch: string }[]>`
          SELECT epoch FROM partition_fences WHERE type = ${type} AND partition = ${partition} FOR SHARE`;
        if (!fence || Number(fence.epoch) !== epoch) {
          throw new FencedError(
            `partition ${type}/${partition} is fenced at epoch ${fence?.epoch ?? 'none'}, not ${epoch}`,
          );
        }
        if (dirty.size > 0) {
          const keys = [...dirty.keys()];
          const slots = [...dirty.values()];
          const written = await tx`
            INSERT INTO actor_snapshots (type, key, version, state, last_msg_id, epoch)
            SELECT ${type}, k, v, s::jsonb, m, ${epoch}
            FROM unnest(${tx.array(keys)}::text[], ${tx.array(slots.map((s) => s.version))}::bigint[],
                        ${tx.array(slots.map((s) => JSON.stringify(s.state ?? null)))}::text[],
                        ${tx.array(slots.map((s) => s.lastMsgId))}::text[]) AS t(k, v, s, m)
            ON CONFLICT (type, key) DO UPDATE
              SET version = EXCLUDED.version, state = EXCLUDED.state, last_msg_id = EXCLUDED.last_msg_id,
                  epoch = EXCLUDED.epoch, updated_at = now()
              WHERE actor_snapshots.epoch <= EXCLUDED.epoch AND actor_snapshots.version < EXCLUDED.version`;
          if (written.count !== keys.length) {
            throw new FencedError(
              `${keys.length - written.count} snapshot(s) of ${type}/${partition} were written by a newer owner`,
            );
          }
        }
        if (outbox.length > 0) {
          await tx`
            INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
            SELECT t, ${type}, k, m, q, p::jsonb
            FROM unnest(${tx.array(outbox.map((o) => o.topic))}::text[], ${tx.array(outbox.map((o) => o.key))}::text[],
                        ${tx.array(outbox.map((o) => o.msgId))}::text[], ${tx.array(outbox.map((o) => o.seq))}::int[],
                        ${tx.array(outbox.map((o) => JSON.stringify(o.payload ?? null)))}::text[]) AS x(t, k, m, q, p)
            ON CONFLICT (actor_type, actor_key, msg_id, seq) DO NOTHING`;
        }
      });
    },
  };
}
