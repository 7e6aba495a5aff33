-- Seeds $8 pending tasks of queue $1 as enqueue_batch would have left them,
-- spread round robin over the types $2 (priorities $3, limited $4): the g-th
-- task is the k-th of type i. A limited type's first $6[i] tasks hold the
-- units $7[$5[i]], $7[$5[i] + 1], … (gate open, slot_group set); its others
-- wait in its lane. Due times are a microsecond apart in id order, from
-- $9 microseconds after a day ago (the transaction's now()): claim order is
-- insertion order.
INSERT INTO {{schema}}.tasks (queue, type, priority, run_at, gate, slot_group)
SELECT $1::text, ($2::text[])[pos.i], ($3::integer[])[pos.i],
       now() - interval '1 day' + ($9::bigint + g) * interval '1 microsecond',
       CASE WHEN NOT ($4::boolean[])[pos.i] OR pos.k < ($6::integer[])[pos.i] THEN 'open'
            ELSE 'waiting' END::{{schema}}.task_gate,
       CASE WHEN pos.k < ($6::integer[])[pos.i] THEN ($7::integer[])[($5::integer[])[pos.i] + pos.k] END
FROM generate_series(0, $8::integer - 1) AS g,
     LATERAL (SELECT g % cardinality($2::text[]) + 1 AS i, g / cardinality($2::text[]) AS k) AS pos;
