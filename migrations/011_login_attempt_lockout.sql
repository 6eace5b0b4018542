-- A login attempt refused by the lockout (429) is recorded but is not itself a failure:
-- otherwise every retry during a lockout would extend it and `Retry-After` would be wrong.
ALTER TABLE admin_login_attempts ADD COLUMN IF NOT EXISTS locked_out BOOLEAN NOT NULL DEFAULT FALSE;
