-- Delegations revoked by their issuer (DELETE /delegation): refused as credentials from then on,
-- by content id, until they would have expired anyway. The stored delegation keeps its id.
ALTER TABLE oracle_delegations ADD COLUMN cid text;

CREATE TABLE oracle_revoked_delegations (
  cid        text        PRIMARY KEY,
  did        text        NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz NOT NULL DEFAULT now()
);
