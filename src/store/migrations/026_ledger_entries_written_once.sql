-- A ledger entry written once (issue 38): the commit of the operation it records inserts it into
-- ledger_entries, where it stays; the writer chains it into a block without writing it again.
--
-- Before, an entry was an outbox row that the writer deleted and inserted again into
-- ledger_entries with its height, index, leaf hash and canonical body: three row writes and a
-- dead row for every entry (measured: a redemption's ledger entry cost about 160 µs of CPU in
-- all processes, the voucher's whole step twice an echo ask).
--
-- Now an entry row carries what it records (actor, message, payload) and `txid`, the id of the
-- transaction that wrote it. A block covers a range of (txid, entry_id), taken only below the
-- oldest transaction still running (pg_snapshot_xmin), so no entry can later appear inside a
-- range already chained: the chain's order is fixed once read, and no entry is skipped. Its body
-- (the canonical JSON that is hashed) is computed from the row, the same bytes the old writer
-- stored. Entries of the blocks written before keep their stored height, index, leaf and body.
ALTER TABLE ledger_entries
  ALTER COLUMN height DROP NOT NULL,
  ALTER COLUMN idx DROP NOT NULL,
  ALTER COLUMN leaf_hash DROP NOT NULL,
  ALTER COLUMN body DROP NOT NULL,
  ADD COLUMN txid xid8,
  ADD COLUMN actor_type text,
  ADD COLUMN actor_key text,
  ADD COLUMN msg_id text,
  ADD COLUMN seq integer,
  ADD COLUMN payload jsonb,
  ADD COLUMN created_at timestamptz;

-- Entry ids go on from the outbox's, which numbered every entry so far.
DO $$
BEGIN
  EXECUTE format('ALTER TABLE ledger_entries ALTER COLUMN entry_id SET DEFAULT nextval(%L)',
                 pg_get_serial_sequence('outbox', 'id'));
END $$;
ALTER TABLE ledger_entries ALTER COLUMN txid SET DEFAULT pg_current_xact_id();
ALTER TABLE ledger_entries ALTER COLUMN created_at SET DEFAULT now();

-- (height, idx) is unique among the old entries only: the new ones have neither, and an index
-- entry for each of their NULLs would be written for nothing.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_height_idx_key;
CREATE UNIQUE INDEX ledger_entries_position ON ledger_entries (height, idx) WHERE height IS NOT NULL;
-- The order the writer chains them in, and what a system writer's retry finds (outbox-writes.ts).
CREATE INDEX ledger_entries_chain ON ledger_entries (txid, entry_id) WHERE txid IS NOT NULL;
CREATE UNIQUE INDEX ledger_entries_origin ON ledger_entries (actor_type, actor_key, msg_id, seq) WHERE txid IS NOT NULL;

-- A block of new entries names its range: after (exclusive) and last (inclusive).
ALTER TABLE ledger_blocks
  ADD COLUMN after_txid xid8,
  ADD COLUMN after_entry bigint,
  ADD COLUMN last_txid xid8,
  ADD COLUMN last_entry bigint;
CREATE INDEX ledger_blocks_by_range ON ledger_blocks (last_txid, last_entry) WHERE last_txid IS NOT NULL;

-- Where the chain stands among the new entries.
ALTER TABLE ledger_head
  ADD COLUMN cursor_txid xid8 NOT NULL DEFAULT '0',
  ADD COLUMN cursor_entry bigint NOT NULL DEFAULT 0;

-- An entry is of one kind: stored with its block's height (before), or written once with its
-- transaction's id. A writer of the old version (which sets the height, and would now get a txid
-- by default) fails here loudly instead of putting an entry in two blocks.
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_one_kind CHECK (num_nonnulls(height, txid) = 1);

-- Entries still waiting in the outbox become entries of the new kind, in their order: taken out
-- and put in by one statement, with the outbox locked, so that no commit of an old process lands
-- between the two (docs/operations.md: stop every process of the old version before migrating).
LOCK TABLE outbox IN SHARE ROW EXCLUSIVE MODE;
WITH moved AS (
  DELETE FROM outbox WHERE topic = 'ledger'
  RETURNING id, actor_type, actor_key, msg_id, seq, payload, created_at, processed_at
)
INSERT INTO ledger_entries (entry_id, actor_type, actor_key, msg_id, seq, payload, created_at, ref)
SELECT id, actor_type, actor_key, msg_id, seq, payload, created_at, payload ->> 'ref'
FROM moved WHERE processed_at IS NULL
ORDER BY id;
