-- The last few work orders that checked a phone's PIN, with what each answered. Two requests of
-- one session can carry out the same order (an aggregator's retry, a double tap); the second
-- must get the first's answer, not count the same wrong PIN twice or check the old PIN against
-- the one the first has just changed. Holds order digests and answers ("ok", "wrong:2"), no PIN.
ALTER TABLE ussd_pins ADD COLUMN IF NOT EXISTS recent_orders jsonb NOT NULL DEFAULT '[]'::jsonb;
