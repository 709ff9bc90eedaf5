create function models.trigram_similarity(kept integer[], query integer[]) returns real
  language sql immutable parallel safe
  as $$
  select case when cardinality(kept) = 0 or cardinality(query) = 0 then 0::real
  else cardinality(kept operator(models.&) query)::real
       / (cardinality(kept) + cardinality(query) - cardinality(kept operator(models.&) query))::real end
$$;
