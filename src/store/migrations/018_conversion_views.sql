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
