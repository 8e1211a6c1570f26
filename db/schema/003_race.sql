-- evotune schema version 3: racing, the hall of fame and held-out checkpoints.
-- Individual and game records are per generation: an individual's row holds only the games
-- it played in that generation (everyone in a generation meets the same references on the
-- same openings, so rows of one generation compare; rows of different ones do not).

ALTER TABLE individuals ADD COLUMN round    INTEGER NOT NULL DEFAULT 0;  -- last racing round played (0 = screening)
ALTER TABLE individuals ADD COLUMN score_se REAL;                        -- standard error of score (pentanomial)
ALTER TABLE individuals ADD COLUMN elo      REAL;                        -- Elo against the generation's reference set
ALTER TABLE individuals ADD COLUMN elo_ci95 REAL;                        -- half-width of its 95% interval

ALTER TABLE games ADD COLUMN depth INTEGER;                    -- search depth of both players (NULL = the run's)
ALTER TABLE games ADD COLUMN round INTEGER NOT NULL DEFAULT 0; -- racing round; -1 = hall-of-fame admission test

ALTER TABLE generations ADD COLUMN elapsed_ms INTEGER;  -- the run's wall time at the end of the generation
ALTER TABLE generations ADD COLUMN champion   TEXT;     -- the champion after the generation (hall-of-fame member with the best lower bound)

-- One row per hall-of-fame test: the generation's race winner (candidate) and the reigning
-- champion (opponent) each play the paper's weights on the same fresh opening pairs.
CREATE TABLE admissions (
    run_id         INTEGER NOT NULL,
    generation     INTEGER NOT NULL,
    candidate      TEXT    NOT NULL,
    opponent       TEXT    NOT NULL,   -- the reigning champion ('baseline' while the hall is empty)
    games          INTEGER NOT NULL,   -- the candidate's games against the paper's weights
    wins           INTEGER NOT NULL,
    draws          INTEGER NOT NULL,
    losses         INTEGER NOT NULL,
    penta          TEXT    NOT NULL CHECK (json_valid(penta)),  -- [pairs scoring 0, 1/2, 1, 3/2, 2]
    score          REAL    NOT NULL,   -- the candidate's score and its standard error
    score_se       REAL    NOT NULL,
    elo            REAL    NOT NULL,   -- the candidate's Elo and its standard error
    elo_se         REAL    NOT NULL,
    opponent_score REAL    NOT NULL,   -- the champion's score on the same games
    diff           REAL    NOT NULL,   -- mean score difference candidate - champion (paired by opening)
    diff_se        REAL    NOT NULL,
    admitted       INTEGER NOT NULL CHECK (admitted IN (0, 1)),
    PRIMARY KEY (run_id, generation),
    FOREIGN KEY (run_id, generation) REFERENCES generations(run_id, generation) ON DELETE CASCADE,
    FOREIGN KEY (run_id, candidate) REFERENCES genomes(run_id, id)
);

-- The hall of fame as of the run's last saved generation: every admitted individual and its
-- games against the paper's weights since its admission (as the defender of later tests).
CREATE TABLE hall_of_fame (
    run_id             INTEGER NOT NULL,
    id                 TEXT    NOT NULL,
    admitted           INTEGER NOT NULL,   -- the generation it was admitted in
    games              INTEGER NOT NULL,
    wins               INTEGER NOT NULL,
    draws              INTEGER NOT NULL,
    losses             INTEGER NOT NULL,
    penta              TEXT    NOT NULL CHECK (json_valid(penta)),
    elo                REAL,               -- Elo against the paper's weights (NULL: no games yet)
    elo_se             REAL,
    elo_lcb            REAL,               -- elo - z * elo_se, z simultaneous over the hall: the champion has the largest
    updated_generation INTEGER NOT NULL,
    PRIMARY KEY (run_id, id),
    FOREIGN KEY (run_id, id) REFERENCES genomes(run_id, id)
);

-- Held-out checks of the champion against the paper's weights (tune --verify-every).
CREATE TABLE checkpoints (
    run_id         INTEGER NOT NULL,
    generation     INTEGER NOT NULL,
    elapsed_ms     INTEGER NOT NULL,   -- the run's wall time when it was played
    champion       TEXT    NOT NULL,
    depth          INTEGER NOT NULL,
    games          INTEGER NOT NULL,
    distinct_pairs INTEGER NOT NULL,
    wins           INTEGER NOT NULL,
    draws          INTEGER NOT NULL,
    losses         INTEGER NOT NULL,
    score          REAL,
    elo            REAL,               -- NULL when no game was played
    elo_ci95       REAL,
    PRIMARY KEY (run_id, generation),
    FOREIGN KEY (run_id, generation) REFERENCES generations(run_id, generation) ON DELETE CASCADE
);

DROP VIEW generation_summary;
CREATE VIEW generation_summary AS
SELECT g.run_id, r.name AS run_name, r.game, g.generation,
       b.score AS best_score, b.score_se AS best_score_se, b.games AS best_games,
       1 - g.fitness_mean AS mean_score,
       g.fitness_min, g.fitness_mean, g.fitness_max, g.fitness_std, g.diversity,
       g.games, g.duration_ms, g.games_ms, g.elapsed_ms, g.best_individual, g.champion,
       c.elo AS verified_elo, c.elo_ci95 AS verified_ci95
FROM generations g JOIN runs r ON r.id = g.run_id
LEFT JOIN individuals b ON b.run_id = g.run_id AND b.generation = g.generation AND b.rank = 1
LEFT JOIN checkpoints c ON c.run_id = g.run_id AND c.generation = g.generation;
