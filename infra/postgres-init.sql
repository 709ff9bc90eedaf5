-- The hub's services create their own schemas and run their migrations at start.
-- pg_trgm backs the model registry's fuzzy search.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
