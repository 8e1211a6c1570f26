-- evotune schema version 12: sides by the game's own names, and who plays a verification
-- ladder.
--
-- games.colour and match_games.a_colour keep the engines' convention: 'black' moves
-- first, in every game. Chess calls the first mover White, so each game now also stores
-- the side in the game's own names (side, a_side: chess 'white' when the player moved
-- first; gomoku, connect6 and amazons 'black') and whether the player moved first
-- (moved_first, a_moved_first: 1 or 0). Rows stored before version 12 are filled in here.
--   SELECT side, count(*), avg(score) FROM games WHERE run_id = 1 GROUP BY side;
ALTER TABLE games ADD COLUMN side TEXT;
ALTER TABLE games ADD COLUMN moved_first INTEGER;
UPDATE games SET moved_first = (colour = 'black'),
    side = CASE WHEN (SELECT game FROM runs WHERE runs.id = games.run_id) = 'chess'
        THEN CASE colour WHEN 'black' THEN 'white' ELSE 'black' END ELSE colour END;

ALTER TABLE match_games ADD COLUMN a_side TEXT;
ALTER TABLE match_games ADD COLUMN a_moved_first INTEGER;
UPDATE match_games SET a_moved_first = (a_colour = 'black'),
    a_side = CASE WHEN (SELECT game FROM matches WHERE matches.id = match_games.match_id) = 'chess'
        THEN CASE a_colour WHEN 'black' THEN 'white' ELSE 'black' END ELSE a_colour END;

-- ladder_claims: the process playing a verification ladder of a run (ladder: its key), so
-- that a second `evotune verify` of the same ladder refuses instead of replacing the
-- first's pending rungs. A claim of a process that died is taken over.
CREATE TABLE ladder_claims (
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    ladder     TEXT    NOT NULL,
    pid        INTEGER NOT NULL,
    claimed_at TEXT    NOT NULL,
    PRIMARY KEY (run_id, ladder)
);
