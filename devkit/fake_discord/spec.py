"""Discord's published OpenAPI specification, held against every REST request the bot sends.

The fake's own handlers only know what the fake serves; this module knows what Discord serves:
`devkit/discord-api-spec/openapi.json` (discord/discord-api-spec, MIT). For each request it finds
the spec's operation (path template + method), refuses what Discord would answer 404 or 405, and
validates path and query parameters and the JSON body (or a multipart `payload_json`) against
the operation's schemas with `jsonschema`. The document is loaded once per process and each
operation's validators are built on first use and cached, so a request costs one schema walk.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .validation import Problems

SPEC_FILE = Path(__file__).resolve().parent.parent / "discord-api-spec" / "openapi.json"
SPEC_URI = "urn:discord-api-spec"
METHODS = ("get", "put", "post", "patch", "delete")
BOOLEAN_WORDS = {"true": True, "false": False, "1": True, "0": False}
_PARAM = re.compile(r"^\{[^}]+\}$")
UNION_KEYWORD = "x-fake-union-by-type"  # our own keyword: a union picked by its members' `type`
ANNOTATIONS = {"title", "description", "format"}
REQUIRED = "This field is required"  # Discord's words, at the missing field's own path


def _discord_in_practice(document: dict[str, Any]) -> dict[str, Any]:
    """The spec's few departures from what Discord documents and accepts, named here and only here.

    Each exception loosens the copy in memory; the shipped file stays as Discord published it.
    """
    schemas = document["components"]["schemas"]
    # 1. Snowflakes: the spec says "string of digits"; Discord documents snowflakes as strings
    #    but accepts integers everywhere it parses one, and discord.py sends some as integers
    #    (e.g. `allowed_mentions.users`, `message_reference.message_id`).
    snowflake = schemas["SnowflakeType"]
    schemas["SnowflakeType"] = {"anyOf": [snowflake, {"type": "integer", "minimum": 0}]}
    # 2. Channel type 16 (GUILD_MEDIA) is documented but missing from this file's ChannelTypes
    #    (the repository's preview spec has it); discord.py lists it in the `channel_types` of a
    #    channel option typed as any guild channel, so a command sync names it.
    schemas["ChannelTypes"]["oneOf"].append({"title": "GUILD_MEDIA", "const": 16})
    return document


JSONSchema = dict[str, Any]


@dataclass
class Parameter:
    """A path or query parameter the operation declares; `validator` checks the coerced value."""

    name: str
    location: str
    required: bool
    schema: JSONSchema
    validator: Any


@dataclass
class Operation:
    """One spec operation: its template, its parameters and (lazily) its body validators."""

    template: str
    method: str
    operation_id: str
    parameters: list[Parameter]
    body_schemas: dict[str, JSONSchema]  # content type -> the spec's schema
    body_required: bool
    _validators: dict[str, Any] = field(default_factory=dict)


class _Compiler:
    """Turns a spec schema into a self-contained one that validates quickly and says why it fails.

    Three rewrites, none changing what is accepted: `$ref`s are inlined (a cycle stays a `$ref`,
    made absolute so it resolves from anywhere); a `oneOf` of bare `const`s becomes an `enum`; and
    a union whose members each fix a distinct `type` (components, interaction callbacks) becomes
    UNION_KEYWORD, which checks only the member the instance names, where `oneOf` would try all
    of them (most of the cost, and an error message about the wrong member).
    """

    def __init__(self, document: dict[str, Any]) -> None:
        self.schemas: dict[str, Any] = document["components"]["schemas"]
        self.done: dict[str, Any] = {}
        self.active: set[str] = set()

    def ref(self, ref: str) -> Any:
        name = ref.rsplit("/", 1)[-1]
        if not ref.startswith("#/components/schemas/") or name in self.active:
            return {"$ref": SPEC_URI + ref}
        if name not in self.done:
            self.active.add(name)
            self.done[name] = self.node(self.schemas[name])
            self.active.discard(name)
        return self.done[name]

    def node(self, node: Any) -> Any:
        if isinstance(node, list):
            return [self.node(item) for item in node]
        if not isinstance(node, dict):
            return node
        if "$ref" in node and len(node) == 1:
            return self.ref(node["$ref"])
        out = {key: self.node(value) for key, value in node.items()}
        for key in ("oneOf", "anyOf"):
            branches = out.get(key)
            if not isinstance(branches, list):
                continue
            if all(isinstance(b, dict) and "const" in b and set(b) <= ANNOTATIONS | {"const"} for b in branches):
                out["enum"] = [b["const"] for b in out.pop(key)]
            elif (table := _by_type(branches)) is not None:
                del out[key]
                out[UNION_KEYWORD] = table
        return out


def _by_type(branches: list[Any]) -> dict[Any, Any] | None:
    """`{type value: member}` when every member is an object that requires a distinct `type`."""
    table: dict[Any, Any] = {}
    for branch in branches:
        if not isinstance(branch, dict) or "type" not in branch.get("required", ()):
            return None
        kind = branch.get("properties", {}).get("type", {})
        values = kind.get("enum", [kind["const"]] if "const" in kind else [])
        if not values or any(v in table for v in values):
            return None
        table.update(dict.fromkeys(values, branch))
    return table


def _union_by_type(validator: Any, table: dict[Any, Any], instance: Any, _: JSONSchema) -> Iterator[ValidationError]:
    """UNION_KEYWORD: validate against the one member whose `type` the instance carries."""
    if not isinstance(instance, dict):
        yield ValidationError(f"{instance!r} is not of type 'object'")
        return
    if "type" not in instance:
        yield ValidationError(REQUIRED, validator="required", validator_value=["type"], instance=instance)
        return
    kind = instance["type"]
    member = None if isinstance(kind, bool) else table.get(kind)
    if member is None:
        yield ValidationError(f"{kind!r} is not one of {list(table)}", path=["type"], instance=kind)
        return
    yield from validator.descend(instance, member)


Validator = validators.extend(Draft202012Validator, {UNION_KEYWORD: _union_by_type})


@dataclass(frozen=True)
class Miss:
    """No operation: Discord's status and message for the request."""

    status: int
    message: str


class DiscordSpec:
    """The spec's routes, matched as Discord's router does: a literal segment beats a parameter."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = _discord_in_practice(document)
        resource: Resource[Any] = Resource.from_contents(self.document, default_specification=DRAFT202012)
        self.registry: Registry[Any] = Registry().with_resource(SPEC_URI, resource)
        self._compiler = _Compiler(self.document)
        routes: list[tuple[int, str, re.Pattern[str], dict[str, Operation]]] = []
        for template, item in self.document["paths"].items():
            segments = template.strip("/").split("/")
            regex = "^/" + "/".join(_segment_regex(s) for s in segments) + "$"
            literals = sum(1 for s in segments if not _PARAM.match(s))
            operations = {
                method.upper(): self._operation(template, method, item, item[method])
                for method in METHODS
                if method in item
            }
            routes.append((literals, template, re.compile(regex), operations))
        routes.sort(key=lambda r: -r[0])
        self._routes = [(regex, ops) for _, _, regex, ops in routes]

    def _validator(self, schema: JSONSchema) -> Any:
        return Validator(self._compiler.node(schema), registry=self.registry)

    def _operation(self, template: str, method: str, item: JSONSchema, op: JSONSchema) -> Operation:
        params: list[Parameter] = []
        for declared in (item, op):
            for raw in declared.get("parameters", []):
                if raw.get("in") in ("path", "query"):
                    validator = self._validator(raw["schema"])
                    required = bool(raw.get("required"))
                    params.append(Parameter(raw["name"], raw["in"], required, raw["schema"], validator))
        body = op.get("requestBody") or {}
        return Operation(
            template,
            method.upper(),
            op.get("operationId", ""),
            params,
            {kind: content["schema"] for kind, content in body.get("content", {}).items()},
            bool(body.get("required")),
        )

    def operation(self, method: str, path: str) -> tuple[Operation, dict[str, str]] | Miss:
        """The operation serving `method path` and its path values by name, or Discord's 404/405."""
        for regex, operations in self._routes:
            found = regex.match(path)
            if found is None:
                continue
            op = operations.get(method)
            if op is None:
                return Miss(405, "405: Method Not Allowed")
            return op, found.groupdict()
        return Miss(404, "404: Not Found")

    def _body_validator(self, op: Operation, content_type: str) -> Any:
        validator = op._validators.get(content_type)
        if validator is None:
            validator = op._validators[content_type] = self._validator(op.body_schemas[content_type])
        return validator

    def check(
        self,
        op: Operation,
        path_values: Mapping[str, str],
        query: Mapping[str, str],
        body: Any,
        content_type: str,
    ) -> Problems:
        """Problems with the parameters and body, as `(dotted.path, message)` like validation.py's."""
        problems: Problems = []
        for param in op.parameters:
            if param.location == "path":
                problems.extend(_check_value(param, _coerce(param.schema, path_values[param.name])))
            elif param.name in query:
                problems.extend(_check_value(param, _coerce(param.schema, query[param.name])))
            elif param.required:
                problems.append((param.name, REQUIRED))
        if body is None:
            if op.body_required:
                problems.append(("", "This request needs a body."))
            return problems
        if not op.body_schemas:
            return problems  # Discord ignores a body it does not read (e.g. discord.py's `{}`)
        kind = content_type if content_type in op.body_schemas else "application/json"
        if kind not in op.body_schemas:
            return [*problems, ("", f"Content-Type {content_type!r} is not accepted here.")]
        problems.extend(_problems(self._body_validator(op, kind).iter_errors(body)))
        return problems


def _segment_regex(segment: str) -> str:
    """A template segment: `{name}` captures one path segment as `name`, anything else is literal."""
    return f"(?P<{segment[1:-1]}>[^/]+)" if _PARAM.match(segment) else re.escape(segment)


def _coerce(schema: JSONSchema, raw: str) -> Any:
    """A path or query string as Discord reads it: booleans and integers from their spelling."""
    kind = schema.get("type")
    if kind == "boolean":
        return BOOLEAN_WORDS.get(raw.lower(), raw)
    if kind == "integer":
        try:
            return int(raw)
        except ValueError:
            return raw
    return raw


def _check_value(param: Parameter, value: Any) -> Problems:
    errors = _leaves(param.validator.iter_errors(value))
    return [(param.name, f"Value {value!r} is invalid: {error.message}") for error in errors]


def _leaves(errors: Iterable[ValidationError]) -> Iterator[ValidationError]:
    """The most relevant cause of each error: inside an anyOf/oneOf, the branch that got furthest.

    `best_match` stops at a union whose branches fail equally (webhook messages are "create or
    update"); there the deepest failure is the one that names the field.
    """
    for error in errors:
        leaf = best_match([error])
        while leaf is not None and leaf.context:
            leaf = max(leaf.context, key=_depth)
        if leaf is not None:
            yield leaf


def _depth(error: ValidationError) -> tuple[int, bool]:
    """How far a union's branch got; at a tie, not the `null` branch of "null or X"."""
    return len(error.absolute_path), not (error.validator == "type" and error.validator_value == "null")


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _problems(errors: Iterable[ValidationError]) -> Problems:
    """Each error at its dotted path (`components.0.components.1.style`), as Discord nests them."""
    problems: Problems = []
    for leaf in _leaves(errors):
        where = [str(p) for p in leaf.absolute_path]
        if leaf.validator == "required" and isinstance(leaf.instance, dict):
            found = [(".".join([*where, name]), REQUIRED) for name in leaf.validator_value if name not in leaf.instance]
        else:
            shown = _shorten(orjson.dumps(leaf.instance).decode(), 80)
            found = [(".".join(where), f"{_shorten(leaf.message, 160)} (got {shown})")]
        problems.extend(problem for problem in found if problem not in problems)
    return problems


@functools.cache
def discord_spec() -> DiscordSpec:
    """The process's one copy of the spec (parsing it takes a fraction of a second; do it once)."""
    return DiscordSpec(orjson.loads(SPEC_FILE.read_bytes()))
