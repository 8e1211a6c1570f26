-- evotune schema version 10: matches are stored as they are played. Each `evotune match`
-- is a row of matches (key: what was asked, as JSON, so that `match --resume` finds the
-- stopped match of the same command), and each game a row of match_games as soon as it
-- ends, so a match stopped or killed keeps every finished game and continues from them.
--   SELECT id, game, a, b, status, json_extract(result, '$.elo') FROM matches;
CREATE TABLE matches (
    id              INTEGER PRIMARY KEY,
    key             TEXT    NOT NULL,
    game            TEXT    NOT NULL,
    a               TEXT    NOT NULL,
    b               TEXT    NOT NULL,
    games_requested INTEGER NOT NULL,
    status          TEXT    NOT NULL CHECK (status IN ('running', 'stopped', 'finished', 'failed')),
    created_at      TEXT    NOT NULL,
    updated_at      TEXT    NOT NULL,
    result          TEXT    CHECK (result IS NULL OR json_valid(result))
);
CREATE INDEX matches_key ON matches (key, id);

CREATE TABLE match_games (
    match_id   INTEGER NOT NULL REFERENCES matches(id) ON DELETE CASCADE,
    pair       INTEGER NOT NULL CHECK (pair >= 0),
    game       INTEGER NOT NULL CHECK (game IN (1, 2)),
    a_colour   TEXT    NOT NULL,
    a_score    REAL    NOT NULL,
    result     TEXT    NOT NULL,
    plies      INTEGER NOT NULL,
    forfeit    TEXT,
    record     TEXT    NOT NULL CHECK (json_valid(record)),
    created_at TEXT    NOT NULL,
    PRIMARY KEY (match_id, pair, game)
);
