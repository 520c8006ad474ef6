"""Refusals, forged clicks, hostile names and options, and nothing private shown in public."""
