-- Each claim of an Idempotency-Key carries a token of the request that made it, so that a gateway
-- whose INSERT's outcome it never learned (the connection died with the commit, as in a failover)
-- can still release its own claim once PostgreSQL is back, and never another request's
-- (src/gateways/http/idempotency.ts). Claims made before this migration have none and lapse
-- after two minutes, as before.
ALTER TABLE idempotency_keys ADD COLUMN claim text;
