"""The pictures the bot draws (the score chart, the podium), with their fonts."""
