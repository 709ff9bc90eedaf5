create trigger search_suffixes_delete after delete on models.models
  referencing old table as old_rows
  for each statement execute function models.keep_search_suffixes();

create trigger search_suffixes_insert after insert on models.models
  referencing new table as new_rows
  for each statement execute function models.keep_search_suffixes();

create trigger search_suffixes_update after update on models.models
  referencing old table as old_rows new table as new_rows
  for each statement execute function models.keep_search_suffixes();

create trigger search_trigrams before insert or update of search_text on models.models
  for each row execute function models.keep_search_trigrams();
