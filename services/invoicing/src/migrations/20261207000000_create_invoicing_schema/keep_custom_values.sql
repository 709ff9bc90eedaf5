create function invoicing.keep_custom_values_on_delete() returns trigger
  language plpgsql
  as $$
  begin
    delete from invoicing.invoice_custom_values as kept using removed where kept.invoice_id = removed.id;
    return null;
  end
$$;

create function invoicing.keep_custom_values_on_insert() returns trigger
  language plpgsql
  as $$
  begin
    insert into invoicing.invoice_custom_values (invoice_id, partner_id, provider_id, key, value, created_at)
      select r.id, r.partner_id, r.provider_id, v.key, v.value, r.created_at
        from added as r,
             jsonb_each(case when jsonb_typeof(r.custom_data) = 'object' then r.custom_data else '{}' end) as v
       where octet_length(v.key) <= 1000
         and case jsonb_typeof(v.value)
               when 'string' then octet_length(v.value #>> '{}') <= 1000
               when 'object' then false
               when 'array' then false
               else true
             end;
    return null;
  end
$$;

create function invoicing.keep_custom_values_on_truncate() returns trigger
  language plpgsql
  as $$
  begin
    truncate invoicing.invoice_custom_values;
    return null;
  end
$$;

create function invoicing.keep_custom_values_on_update() returns trigger
  language plpgsql
  as $$
  begin
    delete from invoicing.invoice_custom_values as kept
      using (select id, partner_id, provider_id, custom_data, created_at from removed
             except select id, partner_id, provider_id, custom_data, created_at from added) as changed
     where kept.invoice_id = changed.id;
    insert into invoicing.invoice_custom_values (invoice_id, partner_id, provider_id, key, value, created_at)
      select r.id, r.partner_id, r.provider_id, v.key, v.value, r.created_at
        from (select id, partner_id, provider_id, custom_data, created_at from added
              except select id, partner_id, provider_id, custom_data, created_at from removed) as r,
             jsonb_each(case when jsonb_typeof(r.custom_data) = 'object' then r.custom_data else '{}' end) as v
       where octet_length(v.key) <= 1000
         and case jsonb_typeof(v.value)
               when 'string' then octet_length(v.value #>> '{}') <= 1000
               when 'object' then false
               when 'array' then false
               else true
             end;
    return null;
  end
$$;
