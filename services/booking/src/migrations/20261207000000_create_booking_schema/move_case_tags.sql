create function booking.move_case_tags() returns trigger
  language plpgsql
  as $$
  begin
    update booking.case_tags set partner_id = new.partner_id, service_provider_id = new.service_provider_id
     where case_id = new.id;
    return null;
  end
$$;
