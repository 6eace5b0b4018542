-- Admin accounts, login attempts (lockout) and the audit log.
CREATE TABLE IF NOT EXISTS admin_users (
    id            BIGSERIAL PRIMARY KEY,
    username      TEXT NOT NULL UNIQUE,
    password_hash TEXT NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT admin_users_bcrypt CHECK (password_hash LIKE '$2%' AND length(password_hash) = 60)
);

CREATE TABLE IF NOT EXISTS admin_login_attempts (
    id       BIGSERIAL PRIMARY KEY,
    username TEXT NOT NULL,
    ip       TEXT,
    at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    success  BOOLEAN NOT NULL
);
CREATE INDEX IF NOT EXISTS admin_login_attempts_user ON admin_login_attempts (lower(username), at DESC);
CREATE INDEX IF NOT EXISTS admin_login_attempts_ip ON admin_login_attempts (ip, at DESC);

CREATE TABLE IF NOT EXISTS admin_audit_log (
    id       BIGSERIAL PRIMARY KEY,
    at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    username TEXT NOT NULL,
    action   TEXT NOT NULL,
    target   TEXT,
    before   JSONB,
    after    JSONB,
    ip       TEXT
);
CREATE INDEX IF NOT EXISTS admin_audit_log_at ON admin_audit_log (at DESC, id DESC);
