"""The REST side of the fake Discord: the plumbing every request goes through, then one module per
family of routes.
"""
