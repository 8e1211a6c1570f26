-- evotune schema version 8: every verification is kept. Each verification match (the one
-- tune plays at the end of a run, and each `evotune verify`) is a row of its own; the
-- run's headline (runs.verification) is a copy of one of them, chosen when it was stored:
-- "largest" (the most games; the default of verify) or "latest" (verify --headline
-- latest), and it names its row (verification_id) and why (headline).
--   SELECT id, source, games, elo, elo_ci95, verdict FROM verification_list WHERE run_id = 1;
CREATE TABLE verifications (
    id         INTEGER PRIMARY KEY,
    run_id     INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    -- tune: the run's own at its end; verify: evotune verify; stored: the run's one
    -- verification from before this version (tune's or a later verify's: not recorded).
    source     TEXT    NOT NULL CHECK (source IN ('tune', 'verify', 'stored')),
    created_at TEXT    NOT NULL,
    result     TEXT    NOT NULL CHECK (json_valid(result))
);
CREATE INDEX verifications_run ON verifications (run_id, id);

INSERT INTO verifications (run_id, source, created_at, result)
    SELECT id, 'stored', updated_at, verification FROM runs WHERE verification IS NOT NULL;
UPDATE runs SET verification = json_set(verification,
        '$.verification_id', (SELECT v.id FROM verifications v WHERE v.run_id = runs.id),
        '$.headline', 'the only verification stored')
    WHERE verification IS NOT NULL;

-- One row a verification, its numbers as columns.
CREATE VIEW verification_list AS
SELECT v.id, v.run_id, v.source, v.created_at,
       json_extract(v.result, '$.champion')       AS champion,
       json_extract(v.result, '$.openings')       AS openings,
       json_extract(v.result, '$.games')          AS games,
       json_extract(v.result, '$.distinct_pairs') AS pairs,
       json_extract(v.result, '$.elo')            AS elo,
       json_extract(v.result, '$.elo_ci95')       AS elo_ci95,
       json_extract(v.result, '$.verdict')        AS verdict,
       json_extract(v.result, '$.deep.elo')       AS deep_elo,
       json_extract(v.result, '$.deep.limits.depth') AS deep_depth,
       v.id = json_extract(r.verification, '$.verification_id') AS headline
FROM verifications v JOIN runs r ON r.id = v.run_id;
