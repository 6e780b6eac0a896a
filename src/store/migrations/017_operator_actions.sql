-- What operators did through the API (issue 25): replaying or discarding dead letters, for now.
-- Who (the API key's id, never its secret), when, what, on what; shown in the console and the CLI.
CREATE TABLE operator_actions (
  id      bigserial   PRIMARY KEY,
  at      timestamptz NOT NULL DEFAULT now(),
  key_id  text        NOT NULL,
  action  text        NOT NULL,
  target  text        NOT NULL,
  detail  jsonb       NOT NULL DEFAULT '{}'::jsonb
);
CREATE INDEX operator_actions_by_at ON operator_actions (at DESC, id DESC);
