-- Hand-written: evaluation names become unique (issue 28), so that the importer's lookup by name is
-- never ambiguous. Duplicates stored before are renamed first, deterministically: the oldest of each
-- name (by created_at, then id) keeps it, and each later one, in that order, takes " (k)" with the
-- smallest k >= 2 that no evaluation's name already has. Such a name ends in " (digits)", which
-- determines its base and k: two renamed ones never collide either. The series per name is long
-- enough: it holds n - 1 free values beside at most every existing name that starts with "name (".
UPDATE "evaluations" AS e SET "name" = renamed.candidate
FROM (
  WITH ranked AS (
    SELECT id, name, row_number() OVER (PARTITION BY name ORDER BY created_at, id) AS rank, count(*) OVER (PARTITION BY name) AS n
    FROM "evaluations"
  ),
  free AS (
    SELECT g.name, c.candidate, 1 + row_number() OVER (PARTITION BY g.name ORDER BY k) AS rank
    FROM (SELECT DISTINCT name, n FROM ranked WHERE n > 1) g
    CROSS JOIN LATERAL generate_series(2, g.n + (SELECT count(*) FROM "evaluations" o WHERE left(o.name, length(g.name) + 2) = g.name || ' (')) AS k
    CROSS JOIN LATERAL (SELECT g.name || ' (' || k || ')' AS candidate) c
    WHERE NOT EXISTS (SELECT 1 FROM "evaluations" o WHERE o.name = c.candidate)
  )
  SELECT r.id, f.candidate FROM ranked r JOIN free f ON f.name = r.name AND f.rank = r.rank WHERE r.rank > 1
) renamed
WHERE e.id = renamed.id;

-- CreateIndex
CREATE UNIQUE INDEX "evaluations_name_key" ON "evaluations"("name");
