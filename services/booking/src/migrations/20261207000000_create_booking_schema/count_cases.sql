create function booking.count_cases_on_delete() returns trigger
  language plpgsql
  as $$
  declare
    changed record;
    free tid;
  begin
    for changed in
      select partner_id, service_provider_id, current_status, sum(change) as change from (select partner_id, service_provider_id, current_status, -1 as change from removed) as written
       group by partner_id, service_provider_id, current_status having sum(change) <> 0
    loop
      if changed.service_provider_id is not null and changed.current_status is not null then
        select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id = changed.service_provider_id and current_status = changed.current_status limit 1 for update skip locked;
      else
        select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id and current_status is not distinct from changed.current_status limit 1 for update skip locked;
      end if;
      if found then
        update booking.case_counts set cases = cases + changed.change where ctid = free;
      else
        insert into booking.case_counts (partner_id, service_provider_id, current_status, cases)
        values (changed.partner_id, changed.service_provider_id, changed.current_status, changed.change);
      end if;
    end loop;
    return null;
  end
$$;

create function booking.count_cases_on_insert() returns trigger
  language plpgsql
  as $$
  declare
    changed record;
    free tid;
  begin
    for changed in
      select partner_id, service_provider_id, current_status, sum(change) as change from (select partner_id, service_provider_id, current_status, 1 as change from added) as written
       group by partner_id, service_provider_id, current_status having sum(change) <> 0
    loop
      if changed.service_provider_id is not null and changed.current_status is not null then
        select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id = changed.service_provider_id and current_status = changed.current_status limit 1 for update skip locked;
      else
        select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id and current_status is not distinct from changed.current_status limit 1 for update skip locked;
      end if;
      if found then
        update booking.case_counts set cases = cases + changed.change where ctid = free;
      else
        insert into booking.case_counts (partner_id, service_provider_id, current_status, cases)
        values (changed.partner_id, changed.service_provider_id, changed.current_status, changed.change);
      end if;
    end loop;
    return null;
  end
$$;

create function booking.count_cases_on_truncate() returns trigger
  language plpgsql
  as $$
  begin
    delete from booking.case_counts;
    return null;
  end
$$;

create function booking.count_cases_on_update() returns trigger
  language plpgsql
  as $$
  declare
    changed record;
    free tid;
  begin
    for changed in
      select partner_id, service_provider_id, current_status, sum(change) as change from (select partner_id, service_provider_id, current_status, -1 as change from removed union all select partner_id, service_provider_id, current_status, 1 from added) as written
       group by partner_id, service_provider_id, current_status having sum(change) <> 0
    loop
      if changed.service_provider_id is not null and changed.current_status is not null then
        select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id = changed.service_provider_id and current_status = changed.current_status limit 1 for update skip locked;
      else
        select ctid into free from booking.case_counts where partner_id = changed.partner_id and service_provider_id is not distinct from changed.service_provider_id and current_status is not distinct from changed.current_status limit 1 for update skip locked;
      end if;
      if found then
        update booking.case_counts set cases = cases + changed.change where ctid = free;
      else
        insert into booking.case_counts (partner_id, service_provider_id, current_status, cases)
        values (changed.partner_id, changed.service_provider_id, changed.current_status, changed.change);
      end if;
    end loop;
    return null;
  end
$$;
