-- A user's UCAN delegation to this oracle (spec 001 POST /delegation), one per DID, sealed with
-- AES-256-GCM (key derived from PIN_ENCRYPTION_KEY): never in clear at rest.
CREATE TABLE oracle_delegations (
  did        text        PRIMARY KEY,
  sealed     text        NOT NULL,
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
