-- Append-only records an actor produces (a voucher's redemptions), written in the same commit
-- as its snapshot, so the snapshot stays small however long the history grows.
CREATE TABLE actor_records (
  actor_type text        NOT NULL,
  actor_key  text        NOT NULL,
  kind       text        NOT NULL,
  record_id  text        NOT NULL,
  msg_id     text        NOT NULL,
  body       jsonb       NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (actor_type, kind, record_id)
);

CREATE INDEX actor_records_by_actor ON actor_records (actor_type, actor_key, kind);

-- Redemptions now live in actor_records; the snapshot no longer carries them.
DROP INDEX IF EXISTS voucher_redemptions;

-- A retried redemption (same Idempotency-Key) is answered from its record, however long ago.
CREATE INDEX redemption_by_request ON actor_records ((body ->> 'requestId')) WHERE actor_type = 'voucher' AND kind = 'redemption';
