-- One lobby or game in play per channel, enforced by the database itself, so two bot processes (or
-- a command racing a restart) can't both open one. A channel that somehow has several already
-- keeps its newest, the one the bot shows there; the older ones are cancelled, their rows kept.
UPDATE games
SET status = 'cancelled', ended_at = (julianday('now') - 2440587.5) * 86400.0, deadline_kind = NULL, deadline_at = NULL
WHERE status IN ('lobby', 'playing')
  AND EXISTS (SELECT 1 FROM games AS newer
              WHERE newer.channel_id = games.channel_id AND newer.status IN ('lobby', 'playing')
                AND (newer.created_at, newer.game_id) > (games.created_at, games.game_id));

CREATE UNIQUE INDEX games_one_active_per_channel ON games (channel_id) WHERE status IN ('lobby', 'playing');
