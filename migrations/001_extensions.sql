-- Extensions used by the schema. CREATE EXTENSION postgis needs a superuser the first
-- time; scripts/setup.sh creates it while bootstrapping the database. IF NOT EXISTS makes
-- this file a no-op for a non-superuser once the extensions exist.
CREATE EXTENSION IF NOT EXISTS postgis;
CREATE EXTENSION IF NOT EXISTS pg_trgm;
