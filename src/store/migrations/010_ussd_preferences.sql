-- A phone's chosen menu language (USSD), remembered across sessions. Only a language code: no
-- secret, no personal data beyond the number the aggregator already sends on every request.
CREATE TABLE IF NOT EXISTS ussd_preferences (
  phone_number text        PRIMARY KEY,
  language     text        NOT NULL,
  updated_at   timestamptz NOT NULL DEFAULT now()
);
