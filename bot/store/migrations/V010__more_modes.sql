-- The house rules' modes (RULES.md, "More modes"): duo (2 players), five, and six (up to 6 seats,
-- allowed now so that six needs no schema change of its own). SQLite can't alter a CHECK
-- constraint; the table definitions are edited in place, which SQLite documents as safe for a
-- constraint every existing row already meets (https://www.sqlite.org/lang_altertable.html,
-- "Making Other Kinds Of Table Schema Changes"); RESET reloads the schema on this connection.
PRAGMA writable_schema = ON;

UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (mode IN (''cutthroat'', ''solo'', ''partners''))',
                  'CHECK (mode IN (''cutthroat'', ''solo'', ''partners'', ''duo'', ''five'', ''six''))')
WHERE type = 'table' AND name = 'games';

UPDATE sqlite_schema
SET sql = replace(sql, 'CHECK (seat BETWEEN 0 AND 3)', 'CHECK (seat BETWEEN 0 AND 5)')
WHERE type = 'table' AND name IN ('seats', 'results');

PRAGMA writable_schema = RESET;
