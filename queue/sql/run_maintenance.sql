SELECT {{schema}}.run_maintenance($1::text)
