\timing on
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_b
select count(*) from sx_b.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
\echo sx_a
select count(*) from sx_a.enqueue_batch(array(select 't'||lpad((i % 1000)::text,4,'0') from generate_series(0,9999) i)) \g /dev/null
