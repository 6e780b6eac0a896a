-- ITMO claims and certificates (token conversion steps 4 and 5) live on the implementer's account.
-- A claim's transfer proof is its ledger entry's inclusion proof: entries that name a `ref` in their
-- payload (an ITMO claim or certificate id) carry it in a column of their own, indexed only where
-- set, so the proof is found without scanning the journal. Older entries have none.
ALTER TABLE ledger_entries ADD COLUMN ref text;
CREATE INDEX ledger_entries_by_ref ON ledger_entries (ref) WHERE ref IS NOT NULL;

-- An account is found by the id of one of its ITMO claims or certificates (doc.itmoIds).
CREATE INDEX account_views_by_itmo_id ON account_views USING gin ((doc -> 'itmoIds'));
