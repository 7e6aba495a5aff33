SELECT counter, count(*), max(value) FROM {{schema}}.counter_values GROUP BY counter
