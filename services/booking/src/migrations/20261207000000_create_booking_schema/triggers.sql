create trigger case_tags_scoped before insert or update of case_id on booking.case_tags
  for each row execute function booking.scope_case_tag();

create trigger cases_counted_on_delete after delete on booking.cases
  referencing old table as removed
  for each statement execute function booking.count_cases_on_delete();

create trigger cases_counted_on_insert after insert on booking.cases
  referencing new table as added
  for each statement execute function booking.count_cases_on_insert();

create trigger cases_counted_on_truncate after truncate on booking.cases
  for each statement execute function booking.count_cases_on_truncate();

create trigger cases_counted_on_update after update on booking.cases
  referencing old table as removed new table as added
  for each statement execute function booking.count_cases_on_update();

create trigger cases_tags_moved after update of partner_id, service_provider_id on booking.cases
  for each row
  when (((old.partner_id is distinct from new.partner_id) or (old.service_provider_id is distinct from new.service_provider_id)))
  execute function booking.move_case_tags();

create trigger order_values_kept_on_insert after insert on booking.cases
  referencing new table as added
  for each statement execute function booking.keep_order_values_on_insert();

create trigger order_values_kept_on_update after update of order_data, partner_id, service_provider_id on booking.cases
  for each row
  when (((old.order_data is distinct from new.order_data) or (old.partner_id is distinct from new.partner_id) or (old.service_provider_id is distinct from new.service_provider_id)))
  execute function booking.keep_order_values_on_update();
