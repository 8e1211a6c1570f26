-- evotune schema version 2: why a game was lost by forfeit (an external engine's crash,
-- time loss, illegal move or protocol violation); NULL for games played to the end.
ALTER TABLE games ADD COLUMN forfeit TEXT;
