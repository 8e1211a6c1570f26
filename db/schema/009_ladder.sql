-- evotune schema version 9: the verification ladder. A verification is a ladder of rungs,
-- each a held-out match under its own condition: rung 0 the tuning condition, then a
-- deeper search, a node count, a chess clock, a time per move, other opponents. Each rung
-- is a row of verification_rungs, written as soon as it is played (verification_id NULL
-- until its ladder is complete, so a ladder that was stopped or killed continues from its
-- stored rungs: `ladder` is what was asked, as JSON). A verification's result holds rung 0
-- at its top level and the other rungs in $.ladder; the verification at --verify-depth,
-- $.deep before this version, is now its ladder's depth rung.
--   SELECT verification_id, rung, condition, games, elo, elo_ci95, holds FROM rung_list WHERE run_id = 1;
CREATE TABLE verification_rungs (
    id              INTEGER PRIMARY KEY,
    run_id          INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    verification_id INTEGER REFERENCES verifications(id) ON DELETE CASCADE,
    ladder          TEXT    NOT NULL,
    rung            INTEGER NOT NULL CHECK (rung >= 0),
    kind            TEXT    NOT NULL CHECK (kind IN ('tuning', 'depth', 'nodes', 'tc', 'movetime', 'opponent')),
    condition       TEXT    NOT NULL,
    created_at      TEXT    NOT NULL,
    result          TEXT    NOT NULL CHECK (json_valid(result))
);
CREATE UNIQUE INDEX verification_rungs_pending ON verification_rungs (run_id, ladder, rung) WHERE verification_id IS NULL;
CREATE INDEX verification_rungs_of ON verification_rungs (verification_id, rung);

-- $.deep becomes the ladder's depth rung.
UPDATE verifications SET result = json_set(json_remove(result, '$.deep'), '$.ladder', json_array(json_set(json_extract(result, '$.deep'),
        '$.rung', 1, '$.kind', 'depth', '$.condition', 'depth ' || json_extract(result, '$.deep.limits.depth'))))
    WHERE json_type(result, '$.deep') = 'object';
UPDATE runs SET verification = json_set(json_remove(verification, '$.deep'), '$.ladder', json_array(json_set(json_extract(verification, '$.deep'),
        '$.rung', 1, '$.kind', 'depth', '$.condition', 'depth ' || json_extract(verification, '$.deep.limits.depth'))))
    WHERE json_type(verification, '$.deep') = 'object';
UPDATE verifications SET result = json_set(result, '$.rung', 0, '$.kind', 'tuning', '$.condition', 'the tuning condition');
UPDATE runs SET verification = json_set(verification, '$.rung', 0, '$.kind', 'tuning', '$.condition', 'the tuning condition')
    WHERE verification IS NOT NULL;

-- The stored verifications' rungs, as rows.
INSERT INTO verification_rungs (run_id, verification_id, ladder, rung, kind, condition, created_at, result)
    SELECT run_id, id, 'stored', 0, 'tuning', 'the tuning condition', created_at, json_remove(result, '$.ladder') FROM verifications;
INSERT INTO verification_rungs (run_id, verification_id, ladder, rung, kind, condition, created_at, result)
    SELECT v.run_id, v.id, 'stored', json_extract(l.value, '$.rung'), json_extract(l.value, '$.kind'), json_extract(l.value, '$.condition'), v.created_at, l.value
    FROM verifications v, json_each(v.result, '$.ladder') l;

-- rung_list: one row per rung of every verification (and of ladders still being played:
-- verification_id NULL), its numbers as columns. holds: 'holds' (SPRT H1, or the 95%
-- interval above 0), 'does not hold' (SPRT H0, or Elo ≤ 0), 'not proven', 'not measured'.
-- An opponent rung's elo is the champion's gain against it over the baseline's (NULL when
-- one side scored all but every game: no finite interval).
CREATE VIEW rung_list AS
SELECT r.run_id, r.verification_id, r.rung, r.kind, r.condition, r.created_at,
       json_extract(r.result, '$.champion')       AS champion,
       json_extract(r.result, '$.games')          AS games,
       json_extract(r.result, '$.distinct_pairs') AS pairs,
       CASE WHEN json_extract(r.result, '$.games') > 0 AND json_extract(r.result, '$.unbounded') IS NOT 1 THEN json_extract(r.result, '$.elo') END      AS elo,
       CASE WHEN json_extract(r.result, '$.games') > 0 AND json_extract(r.result, '$.unbounded') IS NOT 1 THEN json_extract(r.result, '$.elo_ci95') END AS elo_ci95,
       json_extract(r.result, '$.champion_elo')   AS champion_elo,
       json_extract(r.result, '$.baseline_elo')   AS baseline_elo,
       json_extract(r.result, '$.verdict')        AS verdict,
       json_extract(r.result, '$.holds')          AS holds
FROM verification_rungs r;

DROP VIEW verification_list;
CREATE VIEW verification_list AS
SELECT v.id, v.run_id, v.source, v.created_at,
       json_extract(v.result, '$.champion')       AS champion,
       json_extract(v.result, '$.openings')       AS openings,
       json_extract(v.result, '$.games')          AS games,
       json_extract(v.result, '$.distinct_pairs') AS pairs,
       json_extract(v.result, '$.elo')            AS elo,
       json_extract(v.result, '$.elo_ci95')       AS elo_ci95,
       json_extract(v.result, '$.verdict')        AS verdict,
       (SELECT json_extract(l.value, '$.elo') FROM json_each(v.result, '$.ladder') l WHERE json_extract(l.value, '$.kind') = 'depth') AS deep_elo,
       (SELECT json_extract(l.value, '$.limits.depth') FROM json_each(v.result, '$.ladder') l WHERE json_extract(l.value, '$.kind') = 'depth') AS deep_depth,
       json_array_length(v.result, '$.ladder') + 1 AS rungs,
       v.id = json_extract(r.verification, '$.verification_id') AS headline
FROM verifications v JOIN runs r ON r.id = v.run_id;

DROP VIEW champion;
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
       (SELECT json_extract(l.value, '$.elo') FROM json_each(r.verification, '$.ladder') l
         WHERE json_extract(l.value, '$.kind') = 'depth' AND json_extract(l.value, '$.games') > 0) AS deep_elo,
       (SELECT json_extract(l.value, '$.elo_ci95') FROM json_each(r.verification, '$.ladder') l
         WHERE json_extract(l.value, '$.kind') = 'depth' AND json_extract(l.value, '$.games') > 0) AS deep_ci95,
       (SELECT json_extract(l.value, '$.limits.depth') FROM json_each(r.verification, '$.ladder') l
         WHERE json_extract(l.value, '$.kind') = 'depth' AND json_extract(l.value, '$.games') > 0) AS deep_depth
FROM runs r
LEFT JOIN genomes g ON g.run_id = r.id AND g.id = r.best_individual;

-- A game lost by forfeit (a crash, a time loss, an illegal move) names who forfeited —
-- forfeit_by: the individual, or its opponent (an individual, 'baseline' or an engine),
-- the side that lost — and that player's values (forfeit_values: its genes as JSON, NULL
-- for a player that is not a genome of the run), so the values an engine crashed with are
-- in the row, not only the reason.
ALTER TABLE games ADD COLUMN forfeit_by TEXT;
ALTER TABLE games ADD COLUMN forfeit_values TEXT CHECK (forfeit_values IS NULL OR json_valid(forfeit_values));
UPDATE games SET forfeit_by = CASE WHEN score = 0 THEN individual ELSE opponent END WHERE forfeit IS NOT NULL;
UPDATE games SET forfeit_values = (SELECT g.genes FROM genomes g WHERE g.run_id = games.run_id AND g.id = games.forfeit_by)
    WHERE forfeit_by IS NOT NULL;
