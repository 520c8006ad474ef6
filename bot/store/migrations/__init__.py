"""Numbered schema migrations `VNNN__name.sql`, shipped as package data and applied in order."""
