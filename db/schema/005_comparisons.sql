-- evotune schema version 5: comparisons of tuning methods (evotune compare).
-- A comparison runs each method on each seed with the same budget of distinct tuning games;
-- each run's measured result sits in runs.verification. Example (mean Elo per method):
--   SELECT method, avg(json_extract(r.verification, '$.elo'))
--   FROM comparison_runs c JOIN runs r ON r.id = c.run_id WHERE c.comparison_id = 1 GROUP BY method;
CREATE TABLE comparisons (
    id           INTEGER PRIMARY KEY,
    game         TEXT    NOT NULL,
    budget_games INTEGER NOT NULL,                              -- distinct tuning games of each run
    config       TEXT    NOT NULL CHECK (json_valid(config)),   -- methods, seeds, verification, the runs' base config
    status       TEXT    NOT NULL CHECK (status IN ('running', 'finished', 'stopped', 'failed')),
    error        TEXT,
    created_at   TEXT    NOT NULL,
    finished_at  TEXT
);

CREATE TABLE comparison_runs (
    comparison_id INTEGER NOT NULL REFERENCES comparisons(id) ON DELETE CASCADE,
    method        TEXT    NOT NULL,                              -- ga or spsa
    seed          INTEGER NOT NULL,
    run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    PRIMARY KEY (comparison_id, method, seed)
);
