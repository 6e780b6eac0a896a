-- The ledger: an append-only, hash-chained journal of blocks built from the outbox's `ledger`
-- entries. Each block holds its entries' Merkle root, the previous block's hash and its own hash;
-- `npm run ledger:verify` recomputes all of it.

-- The one row that serializes block building (locked FOR UPDATE by the writer) and carries the
-- singleton lease of the ledger actor (so a second worker process stands by instead of racing).
CREATE TABLE ledger_head (
  id           integer     PRIMARY KEY CHECK (id = 1),
  height       bigint      NOT NULL,
  hash         text        NOT NULL,
  lease_owner  text,
  lease_until  timestamptz,
  -- The writer's last failure (an unreachable chain, an unfunded account), shown in /health.
  last_error   text,
  last_error_at timestamptz
);
INSERT INTO ledger_head (id, height, hash) VALUES (1, 0, repeat('0', 64));

CREATE TABLE ledger_blocks (
  height        bigint      PRIMARY KEY,
  prev_hash     text        NOT NULL,
  merkle_root   text        NOT NULL,
  hash          text        NOT NULL UNIQUE,
  entry_count   integer     NOT NULL,
  created_at    timestamptz NOT NULL,
  -- Cosmos anchoring (LEDGER_BACKEND=cosmos): 'none' on the journal backend, 'pending' until the
  -- block's transaction is included on chain, then 'anchored'. The signed bytes are kept before
  -- any broadcast, so a restart re-broadcasts the same transaction instead of signing another.
  anchor_status text        NOT NULL DEFAULT 'none' CHECK (anchor_status IN ('none', 'pending', 'anchored')),
  tx_bytes      bytea,
  tx_hash       text,
  tx_sequence   bigint,
  chain_height  bigint,
  anchored_at   timestamptz,
  anchor_error  text
);

CREATE INDEX ledger_blocks_pending ON ledger_blocks (height) WHERE anchor_status = 'pending';

-- One row per entry: its canonical body exactly as hashed (text, not jsonb, so the bytes stay).
CREATE TABLE ledger_entries (
  entry_id   bigint  PRIMARY KEY,
  height     bigint  NOT NULL REFERENCES ledger_blocks (height),
  idx        integer NOT NULL,
  leaf_hash  text    NOT NULL,
  body       text    NOT NULL,
  UNIQUE (height, idx)
);
