SELECT {{schema}}.heartbeat($1::text)
