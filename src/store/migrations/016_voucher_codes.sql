-- Short numeric voucher codes a person can type on a keypad (issue 24): 10 digits, the last a
-- Damm check digit (src/actors/voucher/code.ts). One per voucher, unique. New
-- vouchers get theirs from the gateway when issued; the vouchers already issued get one here.

CREATE TABLE voucher_codes (
  code       text PRIMARY KEY CHECK (code ~ '^[1-9][0-9]{9}$'),
  voucher_id text NOT NULL UNIQUE
);

DO $$
DECLARE
  damm constant int[] := ARRAY[
    0,3,1,7,5,9,8,6,4,2, 7,0,9,2,1,5,4,8,6,3, 4,2,0,6,8,7,1,3,5,9, 1,7,5,0,9,8,3,4,2,6,
    6,1,2,3,0,4,5,9,7,8, 3,6,7,4,2,0,9,5,8,1, 5,8,6,9,7,2,0,1,3,4, 8,9,4,5,3,6,2,0,1,7,
    9,4,3,8,6,1,7,2,0,5, 2,5,8,1,4,3,6,7,9,0];
  v record;
  body text;
  check_digit int;
  i int;
  done boolean;
BEGIN
  FOR v IN SELECT key FROM voucher_views WHERE key NOT IN (SELECT voucher_id FROM voucher_codes) LOOP
    done := false;
    WHILE NOT done LOOP
      body := (100000000 + floor(random() * 900000000))::bigint::text;
      check_digit := 0;
      FOR i IN 1..9 LOOP
        check_digit := damm[check_digit * 10 + substr(body, i, 1)::int + 1];
      END LOOP;
      INSERT INTO voucher_codes (code, voucher_id) VALUES (body || check_digit::text, v.key)
        ON CONFLICT DO NOTHING;
      done := FOUND;
    END LOOP;
  END LOOP;
END $$;
