-- Posts owed to Discord by a saved action (the outbox), written in the action's own transaction so
-- a crash right after it can't lose them; a row is deleted once the post is delivered.
-- An identity column's values are never reused, so a repeated "delivered" can't delete a newer post.
-- The channel is the game's, so it is not copied here.
CREATE TABLE outbox (
    post_id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    game_id      TEXT NOT NULL REFERENCES games (game_id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    payload_json TEXT NOT NULL,
    created_at   DOUBLE PRECISION NOT NULL
);
