-- Games, who sits where, and each game's append-only event log: SQLite's V001 in PostgreSQL's types
-- (Discord ids are BIGINT, times DOUBLE PRECISION unix seconds, JSON kept as the exact text written).

CREATE TABLE games (
    game_id          TEXT PRIMARY KEY,
    guild_id         BIGINT NOT NULL,
    channel_id       BIGINT NOT NULL,
    mode             TEXT NOT NULL CHECK (mode IN ('cutthroat', 'solo', 'partners')),
    rules_json       TEXT NOT NULL,
    setup_json       TEXT,
    status           TEXT NOT NULL DEFAULT 'lobby'
                     CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    host_id          BIGINT,
    created_at       DOUBLE PRECISION NOT NULL,
    started_at       DOUBLE PRECISION,
    ended_at         DOUBLE PRECISION,
    lobby_message_id BIGINT,
    table_message_id BIGINT
);

-- Start-up reads only unfinished games; a partial index keeps that cheap however long the history.
CREATE INDEX games_unfinished ON games (status) WHERE status IN ('lobby', 'playing');
CREATE INDEX games_by_channel ON games (guild_id, channel_id, created_at);

CREATE TABLE seats (
    game_id   TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seat      INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    name      TEXT NOT NULL,
    user_id   BIGINT,
    bot_level TEXT,
    CHECK ((user_id IS NULL) != (bot_level IS NULL)),
    PRIMARY KEY (game_id, seat)
);

-- One row per accepted action; seq counts from 1 with no gaps.
CREATE TABLE events (
    game_id    TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    event_json TEXT NOT NULL,
    created_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE FUNCTION events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are append-only';
END;
$$;

CREATE TRIGGER events_append_only BEFORE UPDATE ON events
FOR EACH ROW EXECUTE FUNCTION events_append_only();
