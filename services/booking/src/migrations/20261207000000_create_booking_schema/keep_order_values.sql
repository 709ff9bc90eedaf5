create function booking.keep_order_values_on_insert() returns trigger
  language plpgsql
  as $_$
  begin
    insert into booking.case_order_values (case_id, partner_id, service_provider_id, key, value)
      select r.id, r.partner_id, r.service_provider_id, v.key, v.value #>> '{}'
        from added as r,
             jsonb_each(case when jsonb_typeof(r.order_data) = 'object' then r.order_data else '{}' end) as v
       where v.key ~ '^[A-Za-z0-9_-]{1,64}$'
         and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
         and char_length(v.value #>> '{}') <= 255;
    return null;
  end
$_$;

create function booking.keep_order_values_on_update() returns trigger
  language plpgsql
  as $_$
  begin
    delete from booking.case_order_values where case_id = old.id;
    insert into booking.case_order_values (case_id, partner_id, service_provider_id, key, value)
      select r.id, r.partner_id, r.service_provider_id, v.key, v.value #>> '{}'
        from (select new.*) as r,
             jsonb_each(case when jsonb_typeof(r.order_data) = 'object' then r.order_data else '{}' end) as v
       where v.key ~ '^[A-Za-z0-9_-]{1,64}$'
         and jsonb_typeof(v.value) in ('string', 'number', 'boolean')
         and char_length(v.value #>> '{}') <= 255;
    return null;
  end
$_$;
