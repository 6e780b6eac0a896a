-- Read models of the token conversion flow (docs/design/token-conversion.md), written by the same
-- commit statement as each actor's snapshot (see 015): a conversion saga, an account's balances,
-- a pool's reserves. `doc` is the actor's representation; the other columns are what reads filter
-- and sort on. Text dates are ISO 8601 in UTC.

CREATE TABLE conversion_views (
  key         text  PRIMARY KEY,
  account     text,
  status      text,
  created_at  text,
  doc         jsonb NOT NULL
);
CREATE INDEX conversion_views_by_account ON conversion_views (account, created_at DESC, key);

CREATE TABLE account_views (
  key  text  PRIMARY KEY,
  doc  jsonb NOT NULL
);

CREATE TABLE pool_views (
  key  text  PRIMARY KEY,
  doc  jsonb NOT NULL
);

-- Payouts (step 2) and exchange orders (step 6): orders a counterparty settles by a signed callback.
CREATE TABLE order_views (
  key         text  PRIMARY KEY,
  account     text,
  kind        text,
  status      text,
  created_at  text,
  doc         jsonb NOT NULL
);
CREATE INDEX order_views_by_account ON order_views (account, kind, created_at DESC, key);

-- Payment processors and exchange operators: who may call back, with the HMAC secret each signs
-- with, sealed (AES-256-GCM under PIN_ENCRYPTION_KEY): never in clear at rest.
CREATE TABLE counterparties (
  id            text         PRIMARY KEY,
  kind          text         NOT NULL CHECK (kind IN ('payment-processor', 'exchange-operator')),
  name          text         NOT NULL,
  secret_sealed text         NOT NULL,
  created_at    timestamptz  NOT NULL DEFAULT now()
);
