-- Games, who sits where, and each game's append-only event log.

CREATE TABLE games (
    game_id          TEXT PRIMARY KEY,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    mode             TEXT NOT NULL CHECK (mode IN ('cutthroat', 'solo', 'partners')),
    rules_json       TEXT NOT NULL,
    setup_json       TEXT,
    status           TEXT NOT NULL DEFAULT 'lobby'
                     CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    host_id          INTEGER,
    created_at       REAL NOT NULL,
    started_at       REAL,
    ended_at         REAL,
    lobby_message_id INTEGER,
    table_message_id INTEGER
);

-- Start-up reads only unfinished games; a partial index keeps that cheap however long the history.
CREATE INDEX games_unfinished ON games (status) WHERE status IN ('lobby', 'playing');
CREATE INDEX games_by_channel ON games (guild_id, channel_id, created_at);

CREATE TABLE seats (
    game_id   TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    name      TEXT NOT NULL,
    user_id   INTEGER,
    bot_level TEXT,
    CHECK ((user_id IS NULL) != (bot_level IS NULL)),
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;

-- One row per accepted action; seq counts from 1 with no gaps.
CREATE TABLE events (
    game_id    TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    event_json TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;

CREATE TRIGGER events_append_only BEFORE UPDATE ON events
BEGIN
    SELECT RAISE(ABORT, 'events are append-only');
END;
