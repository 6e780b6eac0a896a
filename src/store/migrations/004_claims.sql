-- Finding the voucher of a redemption (claims name only the redemption), and claims by id.
CREATE INDEX voucher_redemptions ON actor_snapshots USING gin ((state -> 'redemptions') jsonb_path_ops) WHERE type = 'voucher';
CREATE INDEX claim_by_id ON actor_snapshots ((state ->> 'id')) WHERE type = 'claim';
