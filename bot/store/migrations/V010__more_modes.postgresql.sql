-- The house rules' modes (RULES.md, "More modes"): duo (2 players), five, and six (up to 6 seats,
-- allowed now so that six needs no schema change of its own).
ALTER TABLE games DROP CONSTRAINT games_mode_check,
    ADD CONSTRAINT games_mode_check CHECK (mode IN ('cutthroat', 'solo', 'partners', 'duo', 'five', 'six'));
ALTER TABLE seats DROP CONSTRAINT seats_seat_check, ADD CONSTRAINT seats_seat_check CHECK (seat BETWEEN 0 AND 5);
ALTER TABLE results DROP CONSTRAINT results_seat_check,
    ADD CONSTRAINT results_seat_check CHECK (seat BETWEEN 0 AND 5);
