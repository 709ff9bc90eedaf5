create trigger custom_values_counted_on_delete after delete on invoicing.invoice_custom_values
  referencing old table as removed
  for each statement execute function invoicing.count_custom_values_on_delete();

create trigger custom_values_counted_on_insert after insert on invoicing.invoice_custom_values
  referencing new table as added
  for each statement execute function invoicing.count_custom_values_on_insert();

create trigger custom_values_counted_on_truncate after truncate on invoicing.invoice_custom_values
  for each statement execute function invoicing.count_custom_values_on_truncate();

create trigger custom_values_counted_on_update after update on invoicing.invoice_custom_values
  referencing old table as removed new table as added
  for each statement execute function invoicing.count_custom_values_on_update();

create trigger custom_values_kept_on_delete after delete on invoicing.invoices
  referencing old table as removed
  for each statement execute function invoicing.keep_custom_values_on_delete();

create trigger custom_values_kept_on_insert after insert on invoicing.invoices
  referencing new table as added
  for each statement execute function invoicing.keep_custom_values_on_insert();

create trigger custom_values_kept_on_truncate after truncate on invoicing.invoices
  for each statement execute function invoicing.keep_custom_values_on_truncate();

create trigger custom_values_kept_on_update after update on invoicing.invoices
  referencing old table as removed new table as added
  for each statement execute function invoicing.keep_custom_values_on_update();

create trigger invoices_counted_on_delete after delete on invoicing.invoices
  referencing old table as removed
  for each statement execute function invoicing.count_invoices_on_delete();

create trigger invoices_counted_on_insert after insert on invoicing.invoices
  referencing new table as added
  for each statement execute function invoicing.count_invoices_on_insert();

create trigger invoices_counted_on_truncate after truncate on invoicing.invoices
  for each statement execute function invoicing.count_invoices_on_truncate();

create trigger invoices_counted_on_update after update on invoicing.invoices
  referencing old table as removed new table as added
  for each statement execute function invoicing.count_invoices_on_update();
