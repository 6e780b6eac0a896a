-- A conversion's read model row changes status at every step of its saga, and the sweep's partial
-- index was defined by status: PostgreSQL cannot update a row in place (HOT) when a column an
-- index or an index's predicate names changes, so every step wrote a new version of the row with
-- an entry in each of its three indexes (issue 38: pg_walinspect counted a saga's index entries).
-- The index is now defined by `running`, which a saga sets at its start and clears at its end:
-- the steps between are HOT updates.
ALTER TABLE conversion_views ADD COLUMN running boolean NOT NULL DEFAULT false;
UPDATE conversion_views SET running = true WHERE status IN ('reserving', 'swapping', 'settling', 'compensating');
DROP INDEX IF EXISTS conversion_views_running;
CREATE INDEX conversion_views_running ON conversion_views (key) WHERE running;
