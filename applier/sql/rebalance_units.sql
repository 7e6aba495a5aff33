-- Brings the units of the task types whose slot groups changed in line with
-- the new capacities: over-capacity groups take units back from open tasks
-- not claimed yet, empty groups outside the layout go, free units go to the
-- waiting tasks (see rebalance_units in migration 005).
SELECT {{schema}}.rebalance_units($1::text[])
