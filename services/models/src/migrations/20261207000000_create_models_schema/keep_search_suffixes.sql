create function models.keep_search_suffixes() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'INSERT' then
      insert into models.search_suffixes (suffix, model_id, manufacturer_id)
        select x.suffix, n.id, n.manufacturer_id from new_rows n, models.suffixes_of(n.search_text) as x(suffix);
    elsif tg_op = 'DELETE' then
      delete from models.search_suffixes s
        using (select o.id, x.suffix from old_rows o, models.suffixes_of(o.search_text) as x(suffix)) gone
        where s.suffix = gone.suffix and s.model_id = gone.id;
    else
      delete from models.search_suffixes s
        using (select o.id, x.suffix from old_rows o join new_rows n on n.id = o.id, models.suffixes_of(o.search_text) as x(suffix)
                where n.search_text <> o.search_text or n.manufacturer_id <> o.manufacturer_id) gone
        where s.suffix = gone.suffix and s.model_id = gone.id;
      -- A conflict only with a suffix the first fill wrote from a model's earlier row.
      insert into models.search_suffixes (suffix, model_id, manufacturer_id)
        select x.suffix, n.id, n.manufacturer_id from new_rows n join old_rows o on o.id = n.id, models.suffixes_of(n.search_text) as x(suffix)
        where n.search_text <> o.search_text or n.manufacturer_id <> o.manufacturer_id
        on conflict (suffix, model_id) do update set manufacturer_id = excluded.manufacturer_id;
    end if;
    return null;
  end
$$;
