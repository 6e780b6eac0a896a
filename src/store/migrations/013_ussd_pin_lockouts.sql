-- Lockouts in a row without a correct PIN: each doubles the next lock (30 min, 1 h, 2 h … 24 h),
-- so guessing a PIN at three tries per lock no longer goes on at 144 guesses a day.
ALTER TABLE ussd_pins ADD COLUMN lockouts integer NOT NULL DEFAULT 0;
