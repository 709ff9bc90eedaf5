create function booking.scope_case_tag() returns trigger
  language plpgsql
  as $$
  begin
    select c.partner_id, c.service_provider_id into new.partner_id, new.service_provider_id
      from booking.cases c where c.id = new.case_id for share;
    return new;
  end
$$;
