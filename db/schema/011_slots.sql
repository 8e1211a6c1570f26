-- evotune schema version 11: how busy the game slots were. Each generation stores the busy
-- slot time of the games it played (the sum of their wall times, ms) and the game slots
-- the run had (its workers); the slot utilisation of a generation is
-- slot_ms / (duration_ms × slots). NULL: not measured (generations saved before version 11,
-- and runs whose games a cluster played: its slots are the workers').
--   SELECT generation, round(slot_utilisation, 3) FROM generation_summary WHERE run_id = 1;
ALTER TABLE generations ADD COLUMN slot_ms INTEGER;
ALTER TABLE generations ADD COLUMN slots INTEGER;

DROP VIEW generation_summary;
CREATE VIEW generation_summary AS
SELECT g.run_id, r.name AS run_name, r.game, g.generation,
       b.score AS best_score, b.score_se AS best_score_se, b.games AS best_games,
       1 - g.fitness_mean AS mean_score,
       g.fitness_min, g.fitness_mean, g.fitness_max, g.fitness_std, g.diversity,
       g.games, g.duration_ms, g.games_ms, g.elapsed_ms, g.best_individual, g.champion,
       c.elo AS verified_elo, c.elo_ci95 AS verified_ci95,
       g.slot_ms, g.slots,
       CASE WHEN g.slots > 0 AND g.duration_ms > 0 THEN CAST(g.slot_ms AS REAL) / (g.duration_ms * g.slots) END AS slot_utilisation
FROM generations g JOIN runs r ON r.id = g.run_id
LEFT JOIN individuals b ON b.run_id = g.run_id AND b.generation = g.generation AND b.rank = 1
LEFT JOIN checkpoints c ON c.run_id = g.run_id AND c.generation = g.generation;
