create extension if not exists pg_trgm;

create extension if not exists intarray with schema models;
