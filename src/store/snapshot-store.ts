import {
  FencedError,
  factKey,
  LEDGER_TOPIC,
  TELL_TOPIC,
  fenceKey,
  type BatchCommit,
  type OutboxRow,
  type SnapshotStore,
  type Slot,
  type Tallies,
} from '../actors/runtime/ports.js';
import { recordOfFact } from '../actors/runtime/types.js';
import type { Sql } from './db.js';
import { retireIdle } from './retire-idle.js';
import { tellBatchRow, TELLS_TOPIC } from './tell-batch.js';
import { viewDocuments, viewWrites } from './view-writes.js';

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
      // One primary-key probe per key. Written as `key = ANY($keys)`, the planner, when its row
      // estimate for the type was stale, scanned every row of the type and filtered them (4 ms
      // for 200 keys among 10,000 USSD sessions, measured), and that happened after any burst
      // of new keys: the very moment the loads come.
      const rows = await sql<SnapshotRow[]>`
        SELECT s.key, s.version, s.state, s.last_msg_id
        FROM unnest(${sql.array(keys as string[])}::text[]) AS k(key)
        JOIN actor_snapshots s ON s.type = ${type} AND s.key = k.key`;
      for (const row of rows) {
        slots.set(row.key, {
          state: row.state === null ? undefined : row.state,
          version: Number(row.version),
          lastMsgId: row.last_msg_id,
        });
      }
      return slots;
    },

    async loadFacts(type, refs) {
      const facts = new Map<string, unknown>();
      if (refs.length === 0) return facts;
      // One primary-key probe per fact: a LATERAL subquery with a LIMIT is not flattened into a
      // join, and the statement is planned at each call (not prepared), so its plan is made for
      // the table as it is now, never one cached while it was empty (it costs a Describe round
      // trip). Measured: prepared while actor_facts was near empty, its cached plan
      // scanned the table, 49 ms a lookup and growing with the very history facts keep away.
      // A record read as a fact (types.ts, recordFact) is found by its primary key, the same way,
      // and its actor checked after: with the actor in the probe, the planner took the index by
      // actor (actor_records_by_actor) and read every record of the actor per probe: a hot
      // voucher's redemptions fell from 4,260 to 1,101/s as its records piled up (bench).
      const records = refs.flatMap((r) => {
        const rec = recordOfFact(r.id);
        return rec ? [{ key: r.key, id: r.id, kind: rec.kind, record: rec.id }] : [];
      });
      const rows = await sql.unsafe<Array<{ key: string; id: string; body: unknown }>>(
        `SELECT r.key, r.id, f.body
         FROM jsonb_to_recordset($1::text::jsonb) AS r(key text, id text)
         CROSS JOIN LATERAL (SELECT body FROM actor_facts WHERE type = $2 AND id = r.id AND key = r.key LIMIT 1) f
         UNION ALL
         SELECT r.key, r.id, x.body
         FROM jsonb_to_recordset($3::text::jsonb) AS r(key text, id text, kind text, record text)
         CROSS JOIN LATERAL (
           SELECT actor_key, body FROM actor_records
           WHERE actor_type = $2 AND kind = r.kind AND record_id = r.record LIMIT 1) x
         WHERE x.actor_key = r.key`,
        [JSON.stringify(refs.filter((r) => !recordOfFact(r.id))), type, JSON.stringify(records)],
        { prepare: false },
      );
      for (const row of rows) facts.set(factKey(row.key, row.id), row.body);
      return facts;
    },

    async loadTallies(type, keys) {
      const tallies = new Map<string, Tallies>();
      if (keys.length === 0) return tallies;
      // Each key's rows are a range of the primary key (one per partition that wrote to it).
      const rows = await sql<Array<{ key: string; name: string; amount: string }>>`
        SELECT t.key, t.name, sum(t.amount)::text AS amount
        FROM unnest(${sql.array(keys as string[])}::text[]) AS k(key)
        JOIN actor_tallies t ON t.type = ${type} AND t.key = k.key
        GROUP BY t.key, t.name`;
      for (const row of rows) tallies.set(row.key, { ...tallies.get(row.key), [row.name]: row.amount });
      return tallies;
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

    async commit(batch) {
      const held = await this.commitMany([batch]);
      if (!held.has(fenceKey(batch.type, batch.partition))) {
        throw new FencedError(`partition ${batch.type}/${batch.partition} is no longer fenced at epoch ${batch.epoch}`);
      }
    },

    async commitMany(batches) {
      // Batches with nothing to write are fence-checked too: their acknowledgements and
      // rejections were computed from state only the current owner may trust.
      const held = new Set<string>();
      if (batches.length === 0) return held;
      const doc = storable(() => commitDocument(batches));
      const deletesFacts = batches.some((b) => b.facts?.some((f) => f.body === null || f.body === undefined));
      const views = storable(() => viewDocuments(batches));
      // One statement, so one round trip and an implicit transaction. Each batch's fence row is
      // read FOR SHARE (a new owner's takeFence waits for it) and only batches whose epoch still
      // holds are written. A snapshot that does not advance aborts the whole statement.
      // Outbox rows and records are plain inserts: each comes with its message's snapshot,
      // advanced in this statement, so a message applied again (a replay after a crash, another
      // owner's) aborts here before its rows could be written twice; an ON CONFLICT check probed
      // their unique indexes once more per row (perf: 14% of PostgreSQL's CPU per redemption went
      // to those probes on four tables). A duplicate would be a bug, refused as one (23505).
      // Each list travels as one JSON document that PostgreSQL unpacks with jsonb_to_recordset,
      // not one array parameter per column (17 of them, escaped element by element by the
      // driver): measured alone, alternating, the worker's CPU per 24-key commit 460 → 340 µs
      // (96 keys: 673 → 407), PostgreSQL's the same (520) or less (1,327 → 1,140).
      const [result] = await sql<{ held: Array<{ type: string; partition: number }> | null }[]>`
        WITH batch AS (
          SELECT * FROM jsonb_to_recordset(${doc.batches}::text::jsonb) AS b(type text, partition int, epoch bigint)
        ), fence AS (
          SELECT f.type, f.partition, f.epoch FROM partition_fences f
          JOIN batch b ON b.type = f.type AND b.partition = f.partition AND b.epoch = f.epoch
          FOR SHARE OF f
        ), input AS (
          SELECT x.type, x.key, x.version, x.state, x.msg, f.epoch
          FROM jsonb_to_recordset(${doc.snapshots}::text::jsonb)
            AS x(type text, partition int, key text, version bigint, msg text, state jsonb)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
        ), snap AS (
          INSERT INTO actor_snapshots (type, key, version, state, last_msg_id, epoch)
          SELECT i.type, i.key, i.version, coalesce(i.state, 'null'::jsonb), i.msg, i.epoch FROM input i
          ON CONFLICT (type, key) DO UPDATE
            SET version = EXCLUDED.version, state = EXCLUDED.state, last_msg_id = EXCLUDED.last_msg_id,
                epoch = EXCLUDED.epoch, updated_at = now()
            WHERE actor_snapshots.epoch <= EXCLUDED.epoch AND actor_snapshots.version < EXCLUDED.version
          RETURNING 1
        ), ob AS (
          INSERT INTO outbox (topic, actor_type, actor_key, msg_id, seq, payload)
          SELECT x.topic, x.type, x.key, x.msg, x.seq, x.payload
          FROM jsonb_to_recordset(${doc.outbox}::text::jsonb)
            AS x(type text, partition int, topic text, key text, msg text, seq int, payload jsonb)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
          RETURNING 1
        ), led AS (
          INSERT INTO ledger_entries (actor_type, actor_key, msg_id, seq, payload, ref)
          SELECT x.type, x.key, x.msg, x.seq, x.payload, x.payload ->> 'ref'
          FROM jsonb_to_recordset(${doc.ledger}::text::jsonb)
            AS x(type text, partition int, key text, msg text, seq int, payload jsonb)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
          RETURNING 1
        ), rec AS (
          INSERT INTO actor_records (actor_type, actor_key, kind, record_id, msg_id, body)
          SELECT x.type, x.key, x.kind, x.id, x.msg, x.body
          FROM jsonb_to_recordset(${doc.records}::text::jsonb)
            AS x(type text, partition int, key text, kind text, id text, msg text, body jsonb)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
          RETURNING 1
        ), tal AS (
          INSERT INTO actor_tallies (type, key, name, stripe, amount)
          SELECT x.owner, x.key, x.name, x.type || ':' || x.partition, x.amount
          FROM jsonb_to_recordset(${doc.tallies}::text::jsonb)
            AS x(type text, partition int, owner text, key text, name text, amount numeric)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
          ON CONFLICT (type, key, name, stripe) DO UPDATE SET amount = actor_tallies.amount + EXCLUDED.amount
          RETURNING 1
        )${factWrites(sql, doc.facts, deletesFacts)} ${viewWrites(sql, views)}
        SELECT (SELECT json_agg(json_build_object('type', type, 'partition', partition)) FROM fence) AS held,
               CASE WHEN (SELECT count(*) FROM snap) <> (SELECT count(*) FROM input)
                    THEN hearth_abort('a snapshot did not advance (written by another owner)') END AS guard,
               (SELECT count(*) FROM ob) AS outboxed,
               (SELECT count(*) FROM led) AS ledgered,
               (SELECT count(*) FROM rec) AS recorded,
               (SELECT count(*) FROM tal) AS tallied`.catch((err: unknown) => {
        if (err instanceof Error && err.message.includes('hearth commit aborted')) throw new FencedError(err.message);
        throw err;
      });
      for (const h of result?.held ?? []) held.add(fenceKey(h.type, h.partition));
      return held;
    },

    retireIdle: (r) => retireIdle(sql, r),
  };
}

/**
 * The commit statement's fact writes (after its `fence`): an upsert of every fact of a held
 * partition and, only when the batch deletes one, a delete by row address. Every row is reached
 * through its primary key, never by a join the planner could turn into a scan of the table.
 */
function factWrites(sql: Sql, facts: string, deletes: boolean): ReturnType<Sql['unsafe']> {
  const upsert = sql`
        , fact_input AS (
          SELECT x.type, x.key, x.id, x.body
          FROM jsonb_to_recordset(${facts}::text::jsonb) AS x(type text, partition int, key text, id text, body jsonb)
          JOIN fence f ON f.type = x.type AND f.partition = x.partition
        ), fact_up AS (
          INSERT INTO actor_facts (type, id, key, body)
          SELECT type, id, key, body FROM fact_input WHERE body IS NOT NULL
          ON CONFLICT (type, id, key) DO UPDATE SET body = EXCLUDED.body
          RETURNING 1
        )`;
  if (!deletes) return upsert;
  return sql`${upsert}, fact_del AS (
          DELETE FROM actor_facts WHERE ctid = ANY (ARRAY(
            SELECT a.ctid FROM fact_input i CROSS JOIN LATERAL (
              SELECT ctid FROM actor_facts WHERE type = i.type AND id = i.id AND key = i.key LIMIT 1
            ) a WHERE i.body IS NULL))
          RETURNING 1
        )`;
}

/** A group commit as seven JSON documents (arrays of rows), one per list the statement unpacks. */
function commitDocument(
  batches: readonly BatchCommit[],
): Record<'batches' | 'snapshots' | 'outbox' | 'ledger' | 'records' | 'facts' | 'tallies', string> {
  const fenced = batches.map((b) => ({ type: b.type, partition: b.partition, epoch: b.epoch }));
  const snapshots = batches.flatMap((b) =>
    [...b.dirty].map(([key, slot]) => ({
      type: b.type,
      partition: b.partition,
      key,
      version: slot.version,
      msg: slot.lastMsgId,
      state: slot.state ?? null,
    })),
  );
  // Ledger entries are written once, where they stay (migration 026); the outbox keeps the tells,
  // a batch's all in one row (tell-batch.ts), and the other effects a row each. The same effect
  // rows, split by where they go (the ledger statement ignores `topic`).
  const effects = (b: BatchCommit, keep: (o: OutboxRow) => boolean) =>
    b.outbox.filter(keep).map((o) => ({
      type: b.type,
      partition: b.partition,
      topic: o.topic,
      key: o.key,
      msg: o.msgId,
      seq: o.seq,
      payload: o.payload ?? null,
    }));
  const outbox = batches.flatMap((b) => {
    const tells = tellBatchRow(b);
    const others = effects(b, (o) => o.topic !== LEDGER_TOPIC && o.topic !== TELL_TOPIC);
    if (!tells) return others;
    const { sender, payload } = tells;
    const row = { type: b.type, partition: b.partition, topic: TELLS_TOPIC, key: sender.key, msg: sender.msgId };
    return [{ ...row, seq: sender.seq, payload }, ...others];
  });
  const ledger = batches.flatMap((b) => effects(b, (o) => o.topic === LEDGER_TOPIC));
  const records = batches.flatMap((b) =>
    (b.records ?? []).map((r) => ({
      type: b.type,
      partition: b.partition,
      key: r.key,
      kind: r.kind,
      id: r.id,
      msg: r.msgId,
      body: r.body ?? null,
    })),
  );
  const facts = batches.flatMap((b) =>
    (b.facts ?? []).map((f) => ({ type: b.type, partition: b.partition, key: f.key, id: f.id, body: f.body ?? null })),
  );
  // Each batch is one partition's, and its additions are summed per actor and name already, so
  // no row is written twice by the statement (which PostgreSQL refuses).
  const tallies = batches.flatMap((b) =>
    (b.tallies ?? []).map((t) => ({
      type: b.type,
      partition: b.partition,
      owner: t.type,
      key: t.key,
      name: t.name,
      amount: t.by,
    })),
  );
  return {
    batches: JSON.stringify(fenced),
    facts: JSON.stringify(facts),
    snapshots: JSON.stringify(snapshots),
    outbox: JSON.stringify(outbox),
    ledger: JSON.stringify(ledger),
    records: JSON.stringify(records),
    tallies: JSON.stringify(tallies),
  };
}

/**
 * Serialises what a commit stores. What JSON cannot hold (a BigInt, a cycle) is a data error,
 * like one PostgreSQL refuses (SQLSTATE 22P02): the worker then isolates the entry that made it
 * and dead-letters it, instead of retrying the same batch for ever.
 */
function storable<T>(serialise: () => T): T {
  try {
    return serialise();
  } catch (err) {
    const message = `a state or outbox row cannot be stored as JSON: ${err instanceof Error ? err.message : String(err)}`;
    throw Object.assign(new Error(message), { code: '22P02' });
  }
}
