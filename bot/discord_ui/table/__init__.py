"""The game table: commands, buttons, what a table and a panel show, and publishing them."""
