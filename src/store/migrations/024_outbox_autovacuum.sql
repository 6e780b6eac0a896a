-- The outbox is a queue: every row is deleted within seconds of its insert, and its readers (the
-- ledger, the tell relay) start at its head, stepping over the dead rows a vacuum has not yet
-- removed. Measured with vacuum off: redemptions fell from 1,350 to 1,018/s over 50,000 as the
-- head filled. Autovacuum's default waits for a fifth of the table to be dead; this table is
-- vacuumed once a hundredth is (docs/scaling.md, "The money path").
ALTER TABLE outbox SET (autovacuum_vacuum_scale_factor = 0.01, autovacuum_vacuum_threshold = 1000);
