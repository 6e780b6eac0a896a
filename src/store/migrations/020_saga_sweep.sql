-- The saga sweep (src/conversion/saga-sweep.ts) looks for conversions and payouts still waiting
-- on a step; these indexes hold only those, so the sweep reads few rows however many have ended.
CREATE INDEX conversion_views_running ON conversion_views (key)
  WHERE status IN ('reserving', 'swapping', 'settling', 'compensating');
CREATE INDEX order_views_reserving ON order_views (key) WHERE status = 'reserving';
