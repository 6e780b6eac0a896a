-- Facts: what an actor keeps beside its snapshot, looked up by id (src/actors/runtime/types.ts,
-- FactsPolicy): applied step ids, pending credits, remembered swap outcomes, ITMO claims. Whatever
-- grows with an actor's history lives here, written in the same commit statement as its snapshot,
-- so the snapshot (written whole on every change) keeps totals and bounded windows only.
-- The key leads with the fact id, so one fact is found by its id alone too (an ITMO claim's
-- holder, say) with no second index to maintain on every write.
CREATE TABLE actor_facts (
  type  text  NOT NULL,
  id    text  NOT NULL,
  key   text  NOT NULL,
  body  jsonb NOT NULL,
  PRIMARY KEY (type, id, key)
);

-- An actor with no state that still emitted effects keeps a snapshot of JSON null (never SQL
-- NULL): its message id is what stops a redelivery from emitting them twice.
