-- For each attached counter: is its trigger present, enabled and calling a
-- function of the current generation ($5 marks its body), and is there a
-- valid unique index on exactly (scope…, column)?
SELECT u.name,
       EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
               WHERE t.tgrelid = to_regclass(u.tbl) AND t.tgname = u.trg AND t.tgenabled <> 'D'
                 AND strpos(p.prosrc, $5::text) > 0),
       EXISTS (SELECT 1 FROM pg_index i
               WHERE i.indrelid = to_regclass(u.tbl) AND i.indisunique AND i.indisvalid AND i.indpred IS NULL
                 AND (SELECT array_agg(a.attname::text ORDER BY k.ord)
                      FROM unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
                      JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum)
                     = c.cols)
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS u(name, tbl, trg, cols_json)
CROSS JOIN LATERAL (SELECT array(SELECT jsonb_array_elements_text(u.cols_json::jsonb)) AS cols) c
