-- Swiss tournaments run by the bot: the setup, the engine's event log (saved before it is acted
-- on), where each table plays (its thread and game), and the posts a tournament owes (round
-- standings, the podium) until they are out. At most one tournament is open per channel (a partial
-- unique index), so two processes can't both open one.
CREATE TABLE tournaments (
    tournament_id TEXT PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,  -- where its sign-up message is; tables play in threads under it
    organiser_id  INTEGER NOT NULL,
    setup_json    TEXT NOT NULL,     -- the engine's setup and the bot's options (computer level, time limits)
    message_id    INTEGER,           -- the sign-up message, once posted
    deadline_at   REAL,              -- what is due next: sign-up closing, the round's time limit, the next round
    status        TEXT NOT NULL CHECK (status IN ('open', 'over', 'cancelled')),
    created_at    REAL NOT NULL
);

CREATE UNIQUE INDEX tournaments_one_open_per_channel ON tournaments (channel_id) WHERE status = 'open';
CREATE INDEX tournaments_by_channel ON tournaments (guild_id, channel_id, created_at);

CREATE TABLE tournament_events (
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    seq           INTEGER NOT NULL CHECK (seq >= 1),
    event_json    TEXT NOT NULL,
    created_at    REAL NOT NULL,
    PRIMARY KEY (tournament_id, seq)
) WITHOUT ROWID;

-- Where a table of a round plays: the thread (its id is the id of the message it was started
-- from) and the game in it, each saved as soon as it exists so a restart finds them again.
CREATE TABLE tournament_tables (
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    round         INTEGER NOT NULL,
    table_no      INTEGER NOT NULL,
    thread_id     INTEGER,
    game_id       TEXT,
    PRIMARY KEY (tournament_id, round, table_no)
) WITHOUT ROWID;

CREATE TABLE tournament_posts (
    post_id       INTEGER PRIMARY KEY AUTOINCREMENT,
    tournament_id TEXT NOT NULL REFERENCES tournaments (tournament_id) ON DELETE CASCADE,
    kind          TEXT NOT NULL,
    payload_json  TEXT NOT NULL,
    created_at    REAL NOT NULL
);
