SELECT {{schema}}.resign_leader($1::text)
