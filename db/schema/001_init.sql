-- evotune schema version 1. Times are UTC RFC 3339 text; JSON columns can be read with
-- json_extract in the sqlite3 shell.

CREATE TABLE runs (
    id               INTEGER PRIMARY KEY,
    name             TEXT    NOT NULL,
    game             TEXT    NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('running', 'finished', 'stopped', 'failed', 'interrupted')),
    seed             INTEGER NOT NULL,
    config           TEXT    NOT NULL CHECK (json_valid(config)),   -- the full run configuration
    program_version  TEXT    NOT NULL,
    pid              INTEGER,                                       -- process writing the run
    created_at       TEXT    NOT NULL,
    updated_at       TEXT    NOT NULL,
    finished_at      TEXT,
    generations_done INTEGER NOT NULL DEFAULT 0,                    -- committed generations
    best_individual  TEXT,                                          -- best by fitness so far
    best_fitness     REAL,
    error            TEXT,
    verification     TEXT CHECK (verification IS NULL OR json_valid(verification))
);

-- One row per distinct individual: its genes and how it was made. Parents always exist
-- (foreign keys), so lineage is exact.
CREATE TABLE genomes (
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    id              TEXT    NOT NULL,                 -- e.g. '1-g3-07': run 1, born in generation 3, slot 7
    born_generation INTEGER NOT NULL,
    operator        TEXT    NOT NULL,                 -- baseline, initial, clone, crossover, mutation, crossover+mutation
    parent1         TEXT,
    parent2         TEXT,
    genes           TEXT    NOT NULL CHECK (json_valid(genes)),  -- {"value_1": 1, ...}
    PRIMARY KEY (run_id, id),
    FOREIGN KEY (run_id, parent1) REFERENCES genomes(run_id, id),
    FOREIGN KEY (run_id, parent2) REFERENCES genomes(run_id, id)
);

CREATE TABLE generations (
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    generation      INTEGER NOT NULL,
    fitness_min     REAL    NOT NULL,   -- eaopt minimises 1 - score: lower is better
    fitness_mean    REAL    NOT NULL,
    fitness_max     REAL    NOT NULL,
    fitness_std     REAL    NOT NULL,
    diversity       REAL    NOT NULL,   -- mean normalised gene distance over pairs (0 = clones)
    games           INTEGER NOT NULL,   -- games played in this generation
    duration_ms     INTEGER NOT NULL,   -- wall time of the generation
    games_ms        INTEGER NOT NULL,   -- wall time spent playing its games
    best_individual TEXT    NOT NULL,
    opponents       TEXT    NOT NULL CHECK (json_valid(opponents)),  -- opponent pool: ["baseline", "1-g2-03", ...]
    openings        TEXT    NOT NULL CHECK (json_valid(openings)),   -- [["J10","K9L11"], ...]
    rng_state       TEXT    NOT NULL DEFAULT '{}',                   -- what resume needs
    created_at      TEXT    NOT NULL,
    PRIMARY KEY (run_id, generation),
    FOREIGN KEY (run_id, best_individual) REFERENCES genomes(run_id, id)
);

-- One row per individual per generation it lived in (an elite appears in several), with
-- its results accumulated over all its generations so far.
CREATE TABLE individuals (
    run_id     INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    id         TEXT    NOT NULL,
    rank       INTEGER NOT NULL,       -- 1 = best of the generation
    fitness    REAL    NOT NULL,       -- 1 - score
    score      REAL    NOT NULL,       -- (W + D/2) / games
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    draws      INTEGER NOT NULL,
    losses     INTEGER NOT NULL,
    penta_0    INTEGER NOT NULL,       -- colour-swapped pairs scoring 0
    penta_1    INTEGER NOT NULL,       -- ... scoring 1/2
    penta_2    INTEGER NOT NULL,       -- ... 1
    penta_3    INTEGER NOT NULL,       -- ... 1 1/2
    penta_4    INTEGER NOT NULL,       -- ... 2
    PRIMARY KEY (run_id, generation, id),
    FOREIGN KEY (run_id, generation) REFERENCES generations(run_id, generation) ON DELETE CASCADE,
    FOREIGN KEY (run_id, id) REFERENCES genomes(run_id, id)
);

CREATE TABLE games (
    id            INTEGER PRIMARY KEY,
    run_id        INTEGER NOT NULL,
    generation    INTEGER NOT NULL,
    individual    TEXT    NOT NULL,
    opponent      TEXT    NOT NULL,    -- 'baseline' or an individual id
    opening       INTEGER NOT NULL,    -- index into generations.openings
    colour        TEXT    NOT NULL CHECK (colour IN ('black', 'white')),  -- the individual's colour
    result        TEXT    NOT NULL CHECK (result IN ('1-0', '0-1', '1/2-1/2')),
    score         REAL    NOT NULL,    -- the individual's score: 1, 1/2 or 0
    plies         INTEGER NOT NULL,
    moves         TEXT    NOT NULL CHECK (json_valid(moves)),
    nodes         INTEGER NOT NULL,
    duration_ms   INTEGER NOT NULL,
    FOREIGN KEY (run_id, generation) REFERENCES generations(run_id, generation) ON DELETE CASCADE,
    FOREIGN KEY (run_id, individual) REFERENCES genomes(run_id, id)
);
CREATE INDEX games_by_individual ON games(run_id, individual);
CREATE INDEX genomes_by_parent1 ON genomes(run_id, parent1);
CREATE INDEX genomes_by_parent2 ON genomes(run_id, parent2);

-- Views a person queries first.
CREATE VIEW generation_summary AS
SELECT g.run_id, r.name AS run_name, r.game, g.generation,
       1 - g.fitness_min AS best_score, 1 - g.fitness_mean AS mean_score,
       g.fitness_min, g.fitness_mean, g.fitness_max, g.fitness_std, g.diversity,
       g.games, g.duration_ms, g.games_ms, g.best_individual
FROM generations g JOIN runs r ON r.id = g.run_id;

CREATE VIEW best_per_generation AS
SELECT i.run_id, i.generation, i.id, i.fitness, i.score, i.games, i.wins, i.draws, i.losses,
       gn.operator, gn.parent1, gn.parent2, gn.genes
FROM individuals i JOIN genomes gn ON gn.run_id = i.run_id AND gn.id = i.id
WHERE i.rank = 1;

CREATE VIEW population AS
SELECT i.*, gn.born_generation, gn.operator, gn.parent1, gn.parent2, gn.genes
FROM individuals i JOIN genomes gn ON gn.run_id = i.run_id AND gn.id = i.id;

-- Every (individual, ancestor) pair with the distance in generations of descent:
--   SELECT * FROM ancestry WHERE run_id = 1 AND id = '1-g5-03' ORDER BY depth;
CREATE VIEW ancestry AS
WITH RECURSIVE a(run_id, id, ancestor, operator, depth) AS (
    SELECT run_id, id, id, operator, 0 FROM genomes
    UNION
    SELECT a.run_id, a.id, p.id, p.operator, a.depth + 1
    FROM a JOIN genomes c ON c.run_id = a.run_id AND c.id = a.ancestor
           JOIN genomes p ON p.run_id = c.run_id AND p.id IN (c.parent1, c.parent2)
)
SELECT DISTINCT run_id, id, ancestor, operator, depth FROM a;
