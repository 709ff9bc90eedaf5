-- The hub's services create their own schemas and run their migrations at start.
-- pg_trgm backs the model registry's fuzzy search; the models service's migrations also create
-- intarray in its own schema (both are trusted extensions, so the database's owner may create them).
CREATE EXTENSION IF NOT EXISTS pg_trgm;
