-- Who may call: API keys are stored as SHA-256 of their secret part (they are 256-bit random,
-- so a fast hash is enough), with the role and, for suppliers and households, their DID.
CREATE TABLE api_keys (
  id         text        PRIMARY KEY,
  hash       text        NOT NULL,
  role       text        NOT NULL CHECK (role IN ('admin', 'implementer', 'supplier', 'regulator', 'household')),
  did        text,
  label      text,
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);

CREATE TABLE households (
  did          text        PRIMARY KEY,
  phone_number text        UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE suppliers (
  did          text        PRIMARY KEY,
  name         text        NOT NULL,
  authorized   boolean     NOT NULL,
  public_key   text        NOT NULL,
  phone_number text        UNIQUE,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE products (
  id         text        PRIMARY KEY,
  name       text        NOT NULL,
  approved   boolean     NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE certificates (
  id                 text        PRIMARY KEY,
  project_id         text        NOT NULL,
  verified_reduction numeric     NOT NULL,
  status             text        NOT NULL CHECK (status IN ('verified', 'pending', 'revoked')),
  monitoring_plan    jsonb       NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now()
);

-- Replays of POSTs carrying the same Idempotency-Key (per API key). `status` is NULL while the
-- first request is still running.
CREATE TABLE idempotency_keys (
  owner        text        NOT NULL,
  key          text        NOT NULL,
  request_hash text        NOT NULL,
  status       integer,
  body         text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (owner, key)
);

-- Reads of vouchers by recipient, status and certificate go straight to their snapshots.
CREATE INDEX voucher_by_recipient ON actor_snapshots ((state ->> 'recipientDid')) WHERE type = 'voucher';
CREATE INDEX voucher_by_certificate ON actor_snapshots ((state ->> 'emissionCertificateId')) WHERE type = 'voucher';
