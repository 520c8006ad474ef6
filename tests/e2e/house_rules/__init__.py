"""The house rules through Discord: forced bids, presets, modes (duo, five and six players), rules of play, trumps."""
