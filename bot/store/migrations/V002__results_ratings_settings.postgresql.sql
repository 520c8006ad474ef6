-- Turn deadlines that survive restarts, per-seat results, ratings and server settings (SQLite's V002).

ALTER TABLE games ADD COLUMN deadline_kind TEXT, ADD COLUMN deadline_at DOUBLE PRECISION;

-- guild_id and mode are copied from the game so a player's stats need no join.
-- rating_* and rank_* keep what finishing the game changed, so finishing twice can answer the same.
CREATE TABLE results (
    game_id       TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat          INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    guild_id      BIGINT NOT NULL,
    mode          TEXT NOT NULL,
    player_key    TEXT NOT NULL,
    name          TEXT NOT NULL,
    is_bot        INTEGER NOT NULL CHECK (is_bot IN (0, 1)),
    final_score   INTEGER NOT NULL,
    place         INTEGER NOT NULL CHECK (place >= 1),
    won           INTEGER NOT NULL CHECK (won IN (0, 1)),
    hands         INTEGER NOT NULL CHECK (hands >= 0),
    bids_made     INTEGER NOT NULL CHECK (bids_made >= 0),
    bids_set      INTEGER NOT NULL CHECK (bids_set >= 0),
    nils_tried    INTEGER NOT NULL CHECK (nils_tried >= 0),
    nils_made     INTEGER NOT NULL CHECK (nils_made >= 0),
    bags          INTEGER NOT NULL CHECK (bags >= 0),
    rating_before DOUBLE PRECISION,
    rating_after  DOUBLE PRECISION NOT NULL,
    rank_before   INTEGER,
    rank_after    INTEGER,
    finished_at   DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX results_by_player ON results (guild_id, player_key, mode);

-- One row per (server, mode, player); also the running totals the leaderboards sort by.
CREATE TABLE ratings (
    guild_id   BIGINT NOT NULL,
    mode       TEXT NOT NULL,
    player_key TEXT NOT NULL,
    is_bot     INTEGER NOT NULL CHECK (is_bot IN (0, 1)),
    name       TEXT NOT NULL,
    mu         DOUBLE PRECISION NOT NULL,
    sigma      DOUBLE PRECISION NOT NULL,
    ordinal    DOUBLE PRECISION NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    points     BIGINT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (guild_id, mode, player_key)
);

-- One index per leaderboard sort: a page is a short index walk, a rank one range count.
CREATE INDEX ratings_by_ordinal ON ratings (guild_id, mode, is_bot, ordinal);
CREATE INDEX ratings_by_wins ON ratings (guild_id, mode, is_bot, wins);
CREATE INDEX ratings_by_points ON ratings (guild_id, mode, is_bot, points);
CREATE INDEX ratings_by_win_rate ON ratings (guild_id, mode, is_bot, (CAST(wins AS DOUBLE PRECISION) / games));

CREATE TABLE guild_settings (
    guild_id      BIGINT PRIMARY KEY,
    settings_json TEXT NOT NULL,
    updated_at    DOUBLE PRECISION NOT NULL
);
