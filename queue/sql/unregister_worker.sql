SELECT {{schema}}.unregister_worker($1::text)
