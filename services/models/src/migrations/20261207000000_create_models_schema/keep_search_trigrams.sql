create function models.keep_search_trigrams() returns trigger
  language plpgsql
  as $$
  begin
    if tg_op = 'UPDATE' and new.search_text is not distinct from old.search_text then
      new.search_trigrams := old.search_trigrams;
    else
      new.search_trigrams := models.trigram_ids(new.search_text);
    end if;
    return new;
  end
$$;
