create function models.suffixes_of(search_text text) returns setof text
  language sql immutable strict parallel safe
  as $$
  select distinct substr(word, start) from unnest(string_to_array(search_text, ' ')) as word,
  generate_series(1, length(word) - 1) as start
$$;
