-- Records the access levels the roles $1 end with: the pairs ($2[i], $3[i])
-- (role, level). Their other rows go.
WITH final AS (
    SELECT f.role, f.level FROM unnest($2::text[], $3::text[]) AS f(role, level)
), gone AS (
    DELETE FROM {{schema}}.grants g
    WHERE g.role = ANY ($1::text[])
      AND NOT EXISTS (SELECT 1 FROM final f WHERE f.role = g.role AND f.level = g.level)
)
INSERT INTO {{schema}}.grants (role, level)
SELECT f.role, f.level FROM final f
ON CONFLICT (role, level) DO NOTHING
