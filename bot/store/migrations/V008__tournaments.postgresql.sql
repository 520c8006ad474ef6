-- Swiss tournaments run by the bot (SQLite's V007 in PostgreSQL's types): the setup, the engine's
-- event log (saved before it is acted on), where each table plays (its thread and game), and the
-- posts a tournament owes (round standings, the podium) until they are out. At most one tournament
-- is open per channel (a partial unique index), so two processes can't both open one.
CREATE TABLE tournaments (
    tournament_id TEXT PRIMARY KEY,
    guild_id      BIGINT NOT NULL,
    channel_id    BIGINT NOT NULL,
    organiser_id  BIGINT NOT NULL,
    setup_json    TEXT NOT NULL,
    message_id    BIGINT,
    deadline_at   DOUBLE PRECISION,
    status        TEXT NOT NULL CHECK (status IN ('open', 'over', 'cancelled')),
    created_at    DOUBLE PRECISION NOT NULL
);

CREATE UNIQUE INDEX tournaments_one_open_per_channel ON tournaments (channel_id) WHERE status = 'open';
CREATE INDEX tournaments_by_channel ON tournaments (guild_id, channel_id, created_at);

CREATE TABLE tournament_events (
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    event_json    TEXT NOT NULL,
    created_at    DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (tournament_id, seq)
);

CREATE TABLE tournament_tables (
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    thread_id     BIGINT,
    game_id       TEXT,
    PRIMARY KEY (tournament_id, round, table_no)
);

CREATE TABLE tournament_posts (
    post_id       BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    payload_json  TEXT NOT NULL,
    created_at    DOUBLE PRECISION NOT NULL
);
