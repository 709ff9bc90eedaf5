create table routing.competences (
  id integer primary key,
  partner_id integer not null,
  rule jsonb not null
);

create index competences_partner_id_index on routing.competences (partner_id);
