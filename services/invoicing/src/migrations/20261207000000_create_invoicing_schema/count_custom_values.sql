create function invoicing.count_custom_values_on_delete() returns trigger
  language plpgsql
  as $$
  declare
    changed record;
    free tid;
  begin
    for changed in
      select partner_id, provider_id, key, value, day, sum(change) as change from (select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, -1 as change from removed) as written
       group by partner_id, provider_id, key, value, day having sum(change) <> 0
    loop
      if true then
        select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
      else
        select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
      end if;
      if found then
        update invoicing.custom_value_days set invoices = invoices + changed.change where ctid = free;
      else
        insert into invoicing.custom_value_days (partner_id, provider_id, key, value, day, invoices)
        values (changed.partner_id, changed.provider_id, changed.key, changed.value, changed.day, changed.change);
      end if;
    end loop;
    return null;
  end
$$;

create function invoicing.count_custom_values_on_insert() returns trigger
  language plpgsql
  as $$
  declare
    changed record;
    free tid;
  begin
    for changed in
      select partner_id, provider_id, key, value, day, sum(change) as change from (select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, 1 as change from added) as written
       group by partner_id, provider_id, key, value, day having sum(change) <> 0
    loop
      if true then
        select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
      else
        select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
      end if;
      if found then
        update invoicing.custom_value_days set invoices = invoices + changed.change where ctid = free;
      else
        insert into invoicing.custom_value_days (partner_id, provider_id, key, value, day, invoices)
        values (changed.partner_id, changed.provider_id, changed.key, changed.value, changed.day, changed.change);
      end if;
    end loop;
    return null;
  end
$$;

create function invoicing.count_custom_values_on_truncate() returns trigger
  language plpgsql
  as $$
  begin
    truncate invoicing.custom_value_days;
    return null;
  end
$$;

create function invoicing.count_custom_values_on_update() returns trigger
  language plpgsql
  as $$
  declare
    changed record;
    free tid;
  begin
    for changed in
      select partner_id, provider_id, key, value, day, sum(change) as change from (select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, -1 as change from removed union all select partner_id, provider_id, key, value, (created_at at time zone 'UTC')::date as day, 1 from added) as written
       group by partner_id, provider_id, key, value, day having sum(change) <> 0
    loop
      if true then
        select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
      else
        select ctid into free from invoicing.custom_value_days where partner_id = changed.partner_id and provider_id = changed.provider_id and key = changed.key and value = changed.value and day = changed.day limit 1 for update skip locked;
      end if;
      if found then
        update invoicing.custom_value_days set invoices = invoices + changed.change where ctid = free;
      else
        insert into invoicing.custom_value_days (partner_id, provider_id, key, value, day, invoices)
        values (changed.partner_id, changed.provider_id, changed.key, changed.value, changed.day, changed.change);
      end if;
    end loop;
    return null;
  end
$$;
