create function models.trigram_ids(search_text text) returns integer[]
  language sql immutable strict parallel safe
  as $$
  select coalesce(array_agg(id order by id), '{}') from (
  select distinct case when length(trigram) = 3
                       then (get_byte(bytes, 0) << 16) | (get_byte(bytes, 1) << 8) | get_byte(bytes, 2)
                       else ('x' || substr(trigram, 3))::bit(24)::int end as id
    from unnest(show_trgm(search_text)) as trigram,
         convert_to(trigram, getdatabaseencoding()) as bytes) ids
$$;
