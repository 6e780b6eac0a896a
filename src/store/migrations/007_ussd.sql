-- USSD PINs, one per phone: an HMAC-SHA256 under PIN_ENCRYPTION_KEY over a per-phone random salt
-- and the session's keyed PIN hash (never the digits). Wrong attempts are counted here, across
-- sessions; three in a row lock the phone for 30 minutes.
CREATE TABLE ussd_pins (
  phone_number    text        PRIMARY KEY,
  did             text        NOT NULL,
  salt            bytea       NOT NULL,
  pin_hash        bytea       NOT NULL,
  failed_attempts integer     NOT NULL DEFAULT 0,
  locked_until    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
