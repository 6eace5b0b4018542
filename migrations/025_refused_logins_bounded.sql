-- Issue 31: refused logins can no longer fill the disk.
--
-- Attempts refused during a lockout were written one row per (username as typed, address)
-- every few seconds: a client varying a long username wrote ~1,000 rows every 5 s. They are
-- now counted per *locked key* — the address (an IPv6 one per /64) or the username that is
-- locked — and each flush adds its count to that key's row of the last hour, so a locked
-- key writes at most one row an hour (per replica). `lock_key` names the key
-- (`addr:203.0.113.7`, `user:admin`); it is NULL on the rows of checked attempts.
ALTER TABLE admin_login_attempts ADD COLUMN IF NOT EXISTS lock_key TEXT;
CREATE INDEX IF NOT EXISTS admin_login_attempts_refused
    ON admin_login_attempts (lock_key, at DESC) WHERE locked_out;

-- The full indexes of migration 006 have served no query since the partial ones of
-- migration 020 (failures only); every refused row paid for them twice.
DROP INDEX IF EXISTS admin_login_attempts_user;
DROP INDEX IF EXISTS admin_login_attempts_ip;
