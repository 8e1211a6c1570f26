-- evotune schema version 4: run names are unique, and the ancestry view lists
-- each ancestor once, at its shortest depth (an ancestor reached along two paths of
-- different lengths was listed twice).

-- Older databases may hold repeated names: the later runs get their ID appended.
UPDATE runs SET name = name || '-run' || id WHERE id NOT IN (SELECT min(id) FROM runs GROUP BY name);
CREATE UNIQUE INDEX runs_name ON runs(name);

DROP VIEW ancestry;
-- Every ancestor of every genome, with the shortest number of generations back (depth 0 =
-- the genome itself) and the operator that made the ancestor. Example:
--   SELECT * FROM ancestry WHERE run_id = 1 AND id = '1-g5-03' ORDER BY depth;
CREATE VIEW ancestry AS
WITH RECURSIVE a(run_id, id, ancestor, depth) AS (
    SELECT run_id, id, id, 0 FROM genomes
    UNION
    SELECT a.run_id, a.id, p.id, a.depth + 1
    FROM a JOIN genomes c ON c.run_id = a.run_id AND c.id = a.ancestor
           JOIN genomes p ON p.run_id = c.run_id AND p.id IN (c.parent1, c.parent2)
)
SELECT a.run_id, a.id, a.ancestor, g.operator, min(a.depth) AS depth
FROM a JOIN genomes g ON g.run_id = a.run_id AND g.id = a.ancestor
GROUP BY a.run_id, a.id, a.ancestor;
