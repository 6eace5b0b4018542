-- Issue 18 (logins that cost nothing when abused, sessions that end).
--
-- Attempts refused by the lockout are no longer written one row per request: the API counts
-- them in memory and writes one row per (username, address) every few seconds, with the
-- number of attempts it stands for. Rows of checked attempts keep `attempts = 1`.
ALTER TABLE admin_login_attempts ADD COLUMN IF NOT EXISTS attempts INTEGER NOT NULL DEFAULT 1;

-- The lockout reads only failures inside the window: indexes that hold exactly those rows.
CREATE INDEX IF NOT EXISTS admin_login_attempts_user_failures
    ON admin_login_attempts (lower(username), at DESC) WHERE NOT success AND NOT locked_out;
CREATE INDEX IF NOT EXISTS admin_login_attempts_ip_failures
    ON admin_login_attempts (ip, at DESC) WHERE NOT success AND NOT locked_out;

-- Every session token carries the generation of its account at login; logout, a password
-- change and a re-seed move the generation on, which ends every older token at its next
-- request.
ALTER TABLE admin_users ADD COLUMN IF NOT EXISTS session_generation BIGINT NOT NULL DEFAULT 0;
