-- Who left a running game: the seat's result is charged to them (a forfeit), not to the computer
-- player that finished the seat, so leaving can't be used to dodge a loss.
ALTER TABLE seats ADD COLUMN left_user_id BIGINT, ADD COLUMN left_name TEXT;
