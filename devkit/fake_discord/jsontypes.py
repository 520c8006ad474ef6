"""`JSON`, the shape of every payload on the wire: the lowest module, so that the gateway's sessions
and the models can both name it without importing each other."""

from typing import Any

JSON = dict[str, Any]
