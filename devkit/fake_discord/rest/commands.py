"""Routes for application commands, global and per guild: list, bulk overwrite, create, read, edit,
delete, each validated as Discord does.
"""

from __future__ import annotations

from typing import Any

from aiohttp import web

from ..jsontypes import JSON
from ..models import new_snowflake
from ..records import Req, json_response, no_content
from ..validation import Problems, validate_command
from .base import Rest


class CommandRoutes(Rest):
    """Serve the application command routes and keep the registry tests read."""

    # ------------------------------------------------------------------ commands

    def _command_scope(self, req: Req) -> dict[int, JSON] | web.Response:
        if int(req.params["application_id"]) != self.application_id:
            return self._error(req, 403, 50001, "Missing Access (wrong application id)", record=True)
        if "guild_id" in req.params:
            guild = self._guild(req)
            if isinstance(guild, web.Response):
                self.record_error("rest", "command registration in an unknown guild", path=req.path)
                return guild
            return self.guild_commands.setdefault(guild.id, {})
        return self.global_commands

    def _normalize_command(self, cmd: JSON, scope: dict[int, JSON], guild_id: str | None) -> JSON:
        ctype = cmd.get("type", 1)
        perms = cmd.get("default_member_permissions")
        existing = next((c for c in scope.values() if c["name"] == cmd["name"] and c["type"] == ctype), None)
        out: JSON = {
            "id": existing["id"] if existing else str(new_snowflake()),
            "application_id": str(self.application_id),
            "version": str(new_snowflake()),
            "type": ctype,
            "name": cmd["name"],
            "name_localizations": cmd.get("name_localizations"),
            "description": cmd.get("description", ""),
            "description_localizations": cmd.get("description_localizations"),
            "options": cmd.get("options") or [],
            # Discord answers with permissions as a string, whatever type was sent.
            "default_member_permissions": None if perms is None else str(perms),
            "dm_permission": cmd.get("dm_permission", True),
            "contexts": cmd.get("contexts"),
            "integration_types": cmd.get("integration_types") or [0],
            "nsfw": cmd.get("nsfw", False),
        }
        if guild_id is not None:
            out["guild_id"] = guild_id
        return out

    def _check_command_set(self, commands: list[Any]) -> Problems:
        problems: Problems = []
        for i, cmd in enumerate(commands):
            problems.extend((f"{i}.{p}" if p else str(i), msg) for p, msg in validate_command(cmd))
        valid = [c for c in commands if isinstance(c, dict)]
        keys = [(c.get("type", 1), c.get("name")) for c in valid]
        for key in set(keys):
            if keys.count(key) > 1:
                problems.append(("", f"Application command names must be unique: {key[1]!r}"))
        for ctype, limit in ((1, 100), (2, 5), (3, 5)):
            count = sum(1 for c in valid if c.get("type", 1) == ctype)
            if count > limit:
                problems.append(("", f"Maximum number of type {ctype} application commands reached ({limit})"))
        return problems

    async def _list_commands(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        return json_response(list(scope.values()))

    async def _put_commands(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        if not isinstance(req.body, list):
            return self._invalid_form(req, [("", "Bulk overwrite needs a JSON array")])
        problems = self._check_command_set(req.body)
        if problems:
            return self._invalid_form(req, problems)
        guild_id = req.params.get("guild_id")
        new = [self._normalize_command(c, scope, guild_id) for c in req.body]
        scope.clear()
        scope.update({int(c["id"]): c for c in new})
        self.command_syncs += 1
        return json_response(new)

    async def _post_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        problems = validate_command(req.body)
        if problems:
            return self._invalid_form(req, problems)
        cmd = self._normalize_command(req.body, scope, req.params.get("guild_id"))
        created = int(cmd["id"]) not in scope
        scope[int(cmd["id"])] = cmd
        self.command_syncs += 1
        return json_response(cmd, 201 if created else 200)

    async def _get_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        cmd = scope.get(int(req.params["command_id"]))
        if cmd is None:
            return self._error(req, 404, 10063, "Unknown application command")
        return json_response(cmd)

    async def _patch_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        cmd = scope.get(int(req.params["command_id"]))
        if cmd is None:
            return self._error(req, 404, 10063, "Unknown application command", record=True)
        merged = {**cmd, **(req.body or {})}
        problems = validate_command(merged)
        if problems:
            return self._invalid_form(req, problems)
        merged["version"] = str(new_snowflake())
        scope[int(cmd["id"])] = merged
        self.command_syncs += 1
        return json_response(merged)

    async def _delete_command(self, req: Req) -> web.Response:
        scope = self._command_scope(req)
        if isinstance(scope, web.Response):
            return scope
        if scope.pop(int(req.params["command_id"]), None) is None:
            return self._error(req, 404, 10063, "Unknown application command", record=True)
        self.command_syncs += 1
        return no_content()
