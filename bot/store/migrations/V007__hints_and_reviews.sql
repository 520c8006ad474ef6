-- Hints players asked for (who and when, never what was advised: that came from their cards), and
-- reviews of finished games, computed once and kept so that asking again is instant.
CREATE TABLE hints (
    hint_id  INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id  TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat     INTEGER NOT NULL,
    hand     INTEGER NOT NULL,
    phase    TEXT NOT NULL CHECK (phase IN ('bid', 'blind_nil', 'play')),
    trick    INTEGER,            -- the trick being played (from 1); NULL while bidding
    asked_at REAL NOT NULL
);

CREATE INDEX hints_by_game ON hints (game_id, hint_id);

CREATE TABLE reviews (
    game_id     TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat        INTEGER NOT NULL,
    version     INTEGER NOT NULL,  -- of the reviewer: a newer reviewer computes it again
    review_text TEXT NOT NULL,
    created_at  REAL NOT NULL,
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;

-- How many hints a seat took in a finished game, so stats can tell games played with help.
ALTER TABLE results ADD COLUMN hints INTEGER NOT NULL DEFAULT 0;
