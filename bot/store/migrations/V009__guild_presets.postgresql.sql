-- A server's own named rule sets (`/spades settings preset_save`), offered by `/spades new rules:`
-- beside the built-in ones: {name: {option: value}}, saved with the server's settings.
ALTER TABLE guild_settings ADD COLUMN presets_json TEXT NOT NULL DEFAULT '{}';
