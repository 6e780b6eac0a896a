-- The actor runtime: snapshots, fencing epochs and the outbox.

-- One row per actor. `epoch` is the fencing token of the partition owner that wrote it;
-- `last_msg_id` is the last mailbox entry applied, so redeliveries are skipped.
CREATE TABLE actor_snapshots (
  type        text        NOT NULL,
  key         text        NOT NULL,
  version     bigint      NOT NULL,
  state       jsonb       NOT NULL,
  last_msg_id text        NOT NULL,
  epoch       bigint      NOT NULL,
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (type, key)
);

-- The current owner epoch of each partition. Taking a partition bumps it under a row lock;
-- every batch commit re-reads it FOR SHARE, so a stale owner's commit fails.
CREATE TABLE partition_fences (
  type       text        NOT NULL,
  partition  integer     NOT NULL,
  epoch      bigint      NOT NULL,
  owner      text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (type, partition)
);

-- Effects that must not be lost (ledger entries, events), written in the same transaction as
-- the snapshots. (actor_type, actor_key, msg_id, seq) makes a replayed effect a no-op.
CREATE TABLE outbox (
  id           bigserial   PRIMARY KEY,
  topic        text        NOT NULL,
  actor_type   text        NOT NULL,
  actor_key    text        NOT NULL,
  msg_id       text        NOT NULL,
  seq          integer     NOT NULL,
  payload      jsonb       NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  processed_at timestamptz,
  result       jsonb,
  UNIQUE (actor_type, actor_key, msg_id, seq)
);

CREATE INDEX outbox_unprocessed ON outbox (topic, id) WHERE processed_at IS NULL;
