SELECT {{schema}}.return_leases($1::text)
