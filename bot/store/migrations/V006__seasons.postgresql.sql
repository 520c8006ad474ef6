-- Seasons of a server's leaderboard (SQLite's V006 in PostgreSQL's types): a running season rates
-- its games again, from scratch, beside the all-time ratings; an ended one keeps its final board.
-- At most one season runs per server (a partial unique index), so two processes can't both start one.
CREATE TABLE seasons (
    season_id  BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    guild_id   BIGINT NOT NULL,
    name       TEXT NOT NULL,
    channel_id BIGINT NOT NULL,   -- where its podium is posted
    started_by BIGINT,            -- NULL when the server's rhythm started it
    rhythm     TEXT CHECK (rhythm IN ('monthly')),
    started_at DOUBLE PRECISION NOT NULL,
    ends_at    DOUBLE PRECISION,  -- the planned end, if any
    ended_at   DOUBLE PRECISION   -- NULL while it runs
);

CREATE UNIQUE INDEX seasons_by_name ON seasons (guild_id, lower(name));
CREATE UNIQUE INDEX seasons_one_running_per_guild ON seasons (guild_id) WHERE ended_at IS NULL;
CREATE INDEX seasons_running_by_end ON seasons (ends_at) WHERE ended_at IS NULL;

-- A season's ratings and running totals, as `ratings` keeps them for all time.
CREATE TABLE season_ratings (
    season_id  BIGINT NOT NULL REFERENCES seasons (season_id) ON DELETE CASCADE,
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
    PRIMARY KEY (season_id, mode, player_key)
);

CREATE INDEX season_ratings_by_ordinal ON season_ratings (season_id, mode, is_bot, ordinal);
CREATE INDEX season_ratings_by_wins ON season_ratings (season_id, mode, is_bot, wins);
CREATE INDEX season_ratings_by_points ON season_ratings (season_id, mode, is_bot, points);
CREATE INDEX season_ratings_by_win_rate
    ON season_ratings (season_id, mode, is_bot, (CAST(wins AS DOUBLE PRECISION) / games));

-- A server's rhythm: a new season every calendar month (UTC), its podium posted in `channel_id`.
CREATE TABLE season_rhythms (
    guild_id   BIGINT PRIMARY KEY,
    rhythm     TEXT NOT NULL CHECK (rhythm IN ('monthly')),
    channel_id BIGINT NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);

-- The season a result counted in, and the player's season rating after it.
ALTER TABLE results ADD COLUMN season_id BIGINT REFERENCES seasons (season_id),
    ADD COLUMN season_rating DOUBLE PRECISION;

-- The outbox also keeps posts owed by a season (its podium): a post belongs to a game or a season.
ALTER TABLE outbox ALTER COLUMN game_id DROP NOT NULL,
    ADD COLUMN season_id BIGINT REFERENCES seasons (season_id) ON DELETE CASCADE,
    ADD CONSTRAINT outbox_owner CHECK ((game_id IS NULL) != (season_id IS NULL));
