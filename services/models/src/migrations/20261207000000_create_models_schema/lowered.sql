create function models.lowered(items text[]) returns text[]
  language sql immutable strict parallel safe
  as $$
  select array(select lower(item) from unnest(items) as item)

$$;
