-- Seasons of a server's leaderboard: a running season rates its games again, from scratch, beside
-- the all-time ratings; an ended one keeps its final board for good. At most one season runs per
-- server (a partial unique index), so two processes can't both start one.
CREATE TABLE seasons (
    season_id  INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER NOT NULL,
    name       TEXT NOT NULL,
    channel_id INTEGER NOT NULL,  -- where its podium is posted
    started_by INTEGER,           -- NULL when the server's rhythm started it
    rhythm     TEXT CHECK (rhythm IN ('monthly')),
    started_at REAL NOT NULL,
    ends_at    REAL,              -- the planned end, if any
    ended_at   REAL               -- NULL while it runs
);

CREATE UNIQUE INDEX seasons_by_name ON seasons (guild_id, lower(name));
CREATE UNIQUE INDEX seasons_one_running_per_guild ON seasons (guild_id) WHERE ended_at IS NULL;
CREATE INDEX seasons_running_by_end ON seasons (ends_at) WHERE ended_at IS NULL;

-- A season's ratings and running totals, as `ratings` keeps them for all time.
CREATE TABLE season_ratings (
    season_id  INTEGER NOT NULL REFERENCES seasons (season_id) ON DELETE CASCADE,
    mode       TEXT NOT NULL,
    player_key TEXT NOT NULL,
    is_bot     INTEGER NOT NULL CHECK (is_bot IN (0, 1)),
    name       TEXT NOT NULL,
    mu         REAL NOT NULL,
    sigma      REAL NOT NULL,
    ordinal    REAL NOT NULL,
    games      INTEGER NOT NULL,
    wins       INTEGER NOT NULL,
    points     INTEGER NOT NULL,
    updated_at REAL NOT NULL,
    PRIMARY KEY (season_id, mode, player_key)
) WITHOUT ROWID;

CREATE INDEX season_ratings_by_ordinal ON season_ratings (season_id, mode, is_bot, ordinal);
CREATE INDEX season_ratings_by_wins ON season_ratings (season_id, mode, is_bot, wins);
CREATE INDEX season_ratings_by_points ON season_ratings (season_id, mode, is_bot, points);
CREATE INDEX season_ratings_by_win_rate ON season_ratings (season_id, mode, is_bot, (CAST(wins AS REAL) / games));

-- A server's rhythm: a new season every calendar month (UTC), its podium posted in `channel_id`.
CREATE TABLE season_rhythms (
    guild_id   INTEGER PRIMARY KEY,
    rhythm     TEXT NOT NULL CHECK (rhythm IN ('monthly')),
    channel_id INTEGER NOT NULL,
    updated_at REAL NOT NULL
);

-- The season a result counted in, and the player's season rating after it.
ALTER TABLE results ADD COLUMN season_id INTEGER REFERENCES seasons (season_id);
ALTER TABLE results ADD COLUMN season_rating REAL;

-- The outbox also keeps posts owed by a season (its podium): a post belongs to a game or a season.
-- SQLite can't drop NOT NULL in place, so the table is rebuilt; its id counter is carried over, so
-- an id is still never reused.
CREATE TABLE outbox_new (
    post_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id      TEXT REFERENCES games (game_id) ON DELETE CASCADE,
    season_id    INTEGER REFERENCES seasons (season_id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    created_at   REAL NOT NULL,
    CHECK ((game_id IS NULL) != (season_id IS NULL))
);
INSERT INTO sqlite_sequence (name, seq) SELECT 'outbox_new', seq FROM sqlite_sequence WHERE name = 'outbox';
INSERT INTO outbox_new (post_id, game_id, kind, payload_json, created_at)
SELECT post_id, game_id, kind, payload_json, created_at FROM outbox;
DROP TABLE outbox;
ALTER TABLE outbox_new RENAME TO outbox;
