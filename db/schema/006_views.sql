-- evotune schema version 6: views for people and other tools reading a database
-- with the sqlite3 shell. NULL means "not measured" (no games), never 0. docs/data.md lists
-- every column with its meaning and unit.

-- champion: each run's champion (runs.best_individual: the hall-of-fame member with the best
-- lower bound, SPSA's final theta, or the paper's weights while nothing beat them), its genes
-- and its verified strength against the paper's weights on held-out openings.
--   SELECT run_id, champion, verified_elo, verified_ci95 FROM champion;
--   SELECT json_extract(genes, '$.live_four') FROM champion WHERE run_id = 1;
CREATE VIEW champion AS
SELECT r.id AS run_id, r.name AS run_name, r.game,
       r.best_individual AS champion,
       g.born_generation, g.operator,
       (g.operator = 'baseline') AS is_baseline,
       g.genes,
       CASE WHEN json_extract(r.verification, '$.games') > 0 THEN json_extract(r.verification, '$.elo') END AS verified_elo,
       CASE WHEN json_extract(r.verification, '$.games') > 0 THEN json_extract(r.verification, '$.elo_ci95') END AS verified_ci95,
       CASE WHEN json_extract(r.verification, '$.games') > 0 THEN json_extract(r.verification, '$.games') END AS verified_games,
       CASE WHEN json_extract(r.verification, '$.games') > 0 THEN json_extract(r.verification, '$.distinct_pairs') END AS verified_pairs,
       CASE WHEN json_extract(r.verification, '$.games') > 0 THEN json_extract(r.verification, '$.limits.depth') END AS verified_depth,
       CASE WHEN json_extract(r.verification, '$.deep.games') > 0 THEN json_extract(r.verification, '$.deep.elo') END AS deep_elo,
       CASE WHEN json_extract(r.verification, '$.deep.games') > 0 THEN json_extract(r.verification, '$.deep.elo_ci95') END AS deep_ci95,
       CASE WHEN json_extract(r.verification, '$.deep.games') > 0 THEN json_extract(r.verification, '$.deep.limits.depth') END AS deep_depth
FROM runs r
LEFT JOIN genomes g ON g.run_id = r.id AND g.id = r.best_individual;

-- run_summary: one row per run: what it was, how far it got, what it found.
--   SELECT run_id, method, status, tuning_games, champion, verified_elo FROM run_summary;
CREATE VIEW run_summary AS
SELECT r.id AS run_id, r.name AS run_name, r.game,
       COALESCE(NULLIF(json_extract(r.config, '$.method'), ''), 'ga') AS method,
       r.status, r.seed, r.generations_done,
       (SELECT sum(games) FROM generations WHERE run_id = r.id) AS tuning_games,
       (SELECT max(elapsed_ms) FROM generations WHERE run_id = r.id) AS elapsed_ms,
       c.champion, c.is_baseline, c.verified_elo, c.verified_ci95, c.verified_games,
       c.verified_depth, c.deep_elo, c.deep_ci95, c.deep_depth,
       r.created_at, r.finished_at, r.error
FROM runs r JOIN champion c ON c.run_id = r.id;
