-- Snapshots that do not grow with history (issue 38): what the account, pool and voucher actors
-- kept in their snapshots and that grew with their use moves into facts (021), and the snapshots
-- keep totals. Each statement below rewrites one kind of field; the actors read only the new shape.

-- Accounts: each credit waiting on a claim's decision becomes a fact, its total stays in the snapshot.
INSERT INTO actor_facts (type, id, key, body)
SELECT 'account', 'pending:' || p.id, s.key, p.credit || '{"status": "pending"}'::jsonb
FROM actor_snapshots s, jsonb_each(coalesce(s.state -> 'pending', '{}'::jsonb)) AS p(id, credit)
WHERE s.type = 'account'
ON CONFLICT DO NOTHING;

-- A settled credit was remembered as "<id>:settled" among the applied steps, without its outcome:
-- kept as settled (a credit or decision told again changes nothing, as before).
INSERT INTO actor_facts (type, id, key, body)
SELECT 'account', 'pending:' || left(r.id, -length(':settled')), s.key, '{"asset": "CARBON", "amount": "0", "status": "settled"}'::jsonb
FROM actor_snapshots s, jsonb_array_elements_text(coalesce(s.state -> 'recent', '[]'::jsonb)) AS r(id)
WHERE s.type = 'account' AND r.id LIKE '%:settled'
ON CONFLICT DO NOTHING;

INSERT INTO actor_facts (type, id, key, body)
SELECT 'account', 'step:' || r.id, s.key, '{"kind": "applied"}'::jsonb
FROM actor_snapshots s, jsonb_array_elements_text(coalesce(s.state -> 'recent', '[]'::jsonb)) AS r(id)
WHERE s.type = 'account' AND r.id NOT LIKE '%:settled'
ON CONFLICT DO NOTHING;

INSERT INTO actor_facts (type, id, key, body)
SELECT 'account', 'itmo-claim:' || c.id, s.key, c.body
FROM actor_snapshots s, jsonb_each(coalesce(s.state -> 'itmo' -> 'claims', '{}'::jsonb)) AS c(id, body)
WHERE s.type = 'account'
ON CONFLICT DO NOTHING;

INSERT INTO actor_facts (type, id, key, body)
SELECT 'account', 'itmo-cert:' || c.id, s.key, c.body
FROM actor_snapshots s, jsonb_each(coalesce(s.state -> 'itmo' -> 'certificates', '{}'::jsonb)) AS c(id, body)
WHERE s.type = 'account'
ON CONFLICT DO NOTHING;

UPDATE actor_snapshots s
SET state = (s.state - 'pending' - 'recent' - 'itmo') || jsonb_build_object('pendingTotals', coalesce((
      SELECT jsonb_object_agg(asset, total::text)
      FROM (
        SELECT p.credit ->> 'asset' AS asset, sum((p.credit ->> 'amount')::numeric) AS total
        FROM jsonb_each(s.state -> 'pending') AS p(id, credit) GROUP BY 1
      ) t), '{}'::jsonb))
WHERE s.type = 'account' AND jsonb_typeof(s.state) = 'object' AND (s.state ? 'pending' OR s.state ? 'recent' OR s.state ? 'itmo');

UPDATE account_views SET doc = doc - 'itmo' - 'itmoIds';
DROP INDEX IF EXISTS account_views_by_itmo_id;

-- Pools: each swap's outcome and each deposit applied.
INSERT INTO actor_facts (type, id, key, body)
SELECT 'pool', 'swap:' || (o.pair ->> 0), s.key, o.pair -> 1
FROM actor_snapshots s, jsonb_array_elements(coalesce(s.state -> 'outcomes', '[]'::jsonb)) AS o(pair)
WHERE s.type = 'pool'
ON CONFLICT DO NOTHING;

INSERT INTO actor_facts (type, id, key, body)
SELECT 'pool', 'deposit:' || d.id, s.key, '{"deposits": null}'::jsonb
FROM actor_snapshots s, jsonb_array_elements_text(coalesce(s.state -> 'deposits', '[]'::jsonb)) AS d(id)
WHERE s.type = 'pool'
ON CONFLICT DO NOTHING;

UPDATE actor_snapshots SET state = state - 'outcomes' - 'deposits'
WHERE type = 'pool' AND jsonb_typeof(state) = 'object';

-- Vouchers: the redemption each request made, and each refund applied.
INSERT INTO actor_facts (type, id, key, body)
SELECT 'voucher', 'redeem:' || (r.redemption ->> 'requestId'), s.key, r.redemption
FROM actor_snapshots s, jsonb_array_elements(coalesce(s.state -> 'recent', '[]'::jsonb)) AS r(redemption)
WHERE s.type = 'voucher'
ON CONFLICT DO NOTHING;

INSERT INTO actor_facts (type, id, key, body)
SELECT 'voucher', 'refund:' || r.id, s.key, '{"amount": null}'::jsonb
FROM actor_snapshots s, jsonb_array_elements_text(coalesce(s.state -> 'refunded', '[]'::jsonb)) AS r(id)
WHERE s.type = 'voucher'
ON CONFLICT DO NOTHING;

UPDATE actor_snapshots SET state = state - 'recent' - 'refunded'
WHERE type = 'voucher' AND jsonb_typeof(state) = 'object';
UPDATE voucher_views SET doc = doc - 'recent' - 'refunded';
