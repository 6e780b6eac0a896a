-- Tallies: amounts other actors' commits add to an actor's counter without a message to it (issue
-- 38). A redemption adds its CARBON to its supplier's pending total in the voucher's own commit,
-- where it used to tell the supplier's account, whose every credit was then a second actor step.
-- One row per writing partition (`stripe`: the writer's type and partition), so the commits of
-- different workers never wait on one row's lock for a hot supplier, and an actor's rows are
-- bounded by the partitions that can write to it. Only `amount` changes on an update, and no
-- index covers it: each is a heap-only update.
CREATE TABLE actor_tallies (
  type text NOT NULL,
  key text NOT NULL,
  name text NOT NULL,
  stripe text NOT NULL,
  amount numeric NOT NULL,
  PRIMARY KEY (type, key, name, stripe)
) WITH (fillfactor = 70);
