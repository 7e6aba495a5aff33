SELECT {{schema}}.elect_leader($1::text)
