-- One lobby or game in play per channel, enforced by the database itself, so two bot processes (or
-- a command racing a restart) can't both open one. (PostgreSQL support arrived with this version,
-- so unlike SQLite no database can hold two active games in a channel already.)
CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status IN ('lobby', 'playing');
