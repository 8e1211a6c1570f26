-- evotune schema version 7: a generation's method state. The column reserved for resume
-- (rng_state, always '{}') becomes method_state: the search method's own JSON state after
-- the generation, read back by the method when a run resumes. SPSA: {"result": W − L of
-- θ+ against θ−, "c_k": …, "r_k": …}; CMA-ES: {"values": [1 − score of each candidate, in
-- slot order], "mean": [the mean after the generation, free genes, SPSA coordinates]}; the
-- GA keeps its population and hall of fame in their own tables and stores '{}'.
--   SELECT generation, json_extract(method_state, '$.result') FROM generations WHERE run_id = 1;
ALTER TABLE generations RENAME COLUMN rng_state TO method_state;

-- SPSA steps saved before this version: the step's result is its θ+'s (rank 2) W − L.
UPDATE generations SET method_state = (
    SELECT json_object('result', i.wins - i.losses) FROM individuals i
    WHERE i.run_id = generations.run_id AND i.generation = generations.generation AND i.rank = 2)
WHERE EXISTS (
    SELECT 1 FROM individuals i JOIN genomes g ON g.run_id = i.run_id AND g.id = i.id
    WHERE i.run_id = generations.run_id AND i.generation = generations.generation AND i.rank = 1 AND g.operator = 'spsa');

-- A long run's charts sample its generations by bucket (the best and worst score of each):
-- range scans of this index, not of the generations' rows with their openings.
CREATE INDEX generations_fitness ON generations (run_id, generation, fitness_min);
