"""Discord's documented payload limits, checked the way Discord would reject a request.

Each validator returns a list of `(path, message)` problems; an empty list means valid.
The server turns problems into a 400 `Invalid Form Body` (code 50035) and records them,
because a bot that trips these limits works in tests with a lax fake but fails in production.
"""

from __future__ import annotations

import re
from typing import Any

from .jsontypes import JSON
from .models import FLAG_IS_COMPONENTS_V2, iter_components

Problems = list[tuple[str, str]]

MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TITLE = 256
MAX_EMBED_DESCRIPTION = 4096
MAX_EMBED_FIELDS = 25
MAX_FIELD_NAME = 256
MAX_FIELD_VALUE = 1024
MAX_FOOTER = 2048
MAX_AUTHOR_NAME = 256
MAX_EMBED_TOTAL = 6000
MAX_ACTION_ROWS = 5
MAX_BUTTONS_PER_ROW = 5
MAX_CUSTOM_ID = 100
MAX_BUTTON_LABEL = 80
MAX_SELECT_OPTIONS = 25
MAX_V2_COMPONENTS = 40
MAX_V2_TEXT = 4000
MAX_CHOICES = 25
MAX_NONCE = 25

SELECT_TYPES = {3, 5, 6, 7, 8}
V2_TOP_LEVEL = {1, 9, 10, 12, 13, 14, 17}
V2_IN_CONTAINER = {1, 9, 10, 12, 13, 14}
MAX_SECTION_TEXTS = 3
MAX_GALLERY_ITEMS = 10
MAX_MEDIA_DESCRIPTION = 1024
COMMAND_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


def _length(value: Any) -> int:
    return len(value) if isinstance(value, str) else 0


def validate_embeds(embeds: Any, path: str = "embeds") -> Problems:
    problems: Problems = []
    if not isinstance(embeds, list):
        return [(path, "Must be an array")]
    if len(embeds) > MAX_EMBEDS:
        problems.append((path, f"Must be {MAX_EMBEDS} or fewer in length (got {len(embeds)})."))
    total = 0
    for i, embed in enumerate(embeds):
        p = f"{path}.{i}"
        if not isinstance(embed, dict):
            problems.append((p, "Must be an object"))
            continue
        title, desc = embed.get("title"), embed.get("description")
        if _length(title) > MAX_EMBED_TITLE:
            problems.append((f"{p}.title", f"Must be {MAX_EMBED_TITLE} or fewer in length."))
        if _length(desc) > MAX_EMBED_DESCRIPTION:
            problems.append((f"{p}.description", f"Must be {MAX_EMBED_DESCRIPTION} or fewer in length."))
        total += _length(title) + _length(desc)
        fields = embed.get("fields") or []
        if len(fields) > MAX_EMBED_FIELDS:
            problems.append((f"{p}.fields", f"Must be {MAX_EMBED_FIELDS} or fewer in length."))
        for j, fld in enumerate(fields):
            name, value = fld.get("name"), fld.get("value")
            if not isinstance(name, str) or not name:
                problems.append((f"{p}.fields.{j}.name", "This field is required"))
            elif len(name) > MAX_FIELD_NAME:
                problems.append((f"{p}.fields.{j}.name", f"Must be {MAX_FIELD_NAME} or fewer in length."))
            if not isinstance(value, str) or not value:
                problems.append((f"{p}.fields.{j}.value", "This field is required"))
            elif len(value) > MAX_FIELD_VALUE:
                problems.append((f"{p}.fields.{j}.value", f"Must be {MAX_FIELD_VALUE} or fewer in length."))
            total += _length(name) + _length(value)
        footer = (embed.get("footer") or {}).get("text")
        if _length(footer) > MAX_FOOTER:
            problems.append((f"{p}.footer.text", f"Must be {MAX_FOOTER} or fewer in length."))
        author = (embed.get("author") or {}).get("name")
        if _length(author) > MAX_AUTHOR_NAME:
            problems.append((f"{p}.author.name", f"Must be {MAX_AUTHOR_NAME} or fewer in length."))
        total += _length(footer) + _length(author)
    if total > MAX_EMBED_TOTAL:
        problems.append((path, f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL} (got {total})."))
    return problems


def _validate_button(comp: JSON, p: str) -> Problems:
    problems: Problems = []
    style = comp.get("style")
    if style not in (1, 2, 3, 4, 5, 6):
        problems.append((f"{p}.style", f"Invalid button style {style!r}."))
    if style == 5:
        if not comp.get("url"):
            problems.append((f"{p}.url", "Link buttons need a url."))
        if "custom_id" in comp:
            problems.append((f"{p}.custom_id", "Link buttons cannot have a custom_id."))
    elif style == 6:
        if not comp.get("sku_id"):
            problems.append((f"{p}.sku_id", "Premium buttons need a sku_id."))
    elif not comp.get("custom_id"):
        problems.append((f"{p}.custom_id", "This field is required"))
    label = comp.get("label")
    if _length(label) > MAX_BUTTON_LABEL:
        problems.append((f"{p}.label", f"Must be {MAX_BUTTON_LABEL} or fewer in length."))
    if style != 6 and not label and not comp.get("emoji"):
        problems.append((p, "A button needs a label or an emoji."))
    return problems


def _validate_select(comp: JSON, p: str) -> Problems:
    problems: Problems = []
    if not comp.get("custom_id"):
        problems.append((f"{p}.custom_id", "This field is required"))
    if _length(comp.get("placeholder")) > 150:
        problems.append((f"{p}.placeholder", "Must be 150 or fewer in length."))
    min_values = comp.get("min_values", 1)
    max_values = comp.get("max_values", 1)
    if not (0 <= min_values <= 25) or not (1 <= max_values <= 25) or min_values > max_values:
        problems.append((p, f"Invalid min_values/max_values {min_values}/{max_values}."))
    if comp.get("type") == 3:
        options = comp.get("options") or []
        if not 1 <= len(options) <= MAX_SELECT_OPTIONS:
            problems.append((f"{p}.options", f"Must be between 1 and {MAX_SELECT_OPTIONS} in length."))
        if max_values > len(options):
            problems.append((f"{p}.max_values", "max_values exceeds the number of options."))
        values: set[str] = set()
        for k, opt in enumerate(options):
            for key in ("label", "value"):
                if not opt.get(key) or _length(opt.get(key)) > 100:
                    problems.append((f"{p}.options.{k}.{key}", "Must be between 1 and 100 in length."))
            if _length(opt.get("description")) > 100:
                problems.append((f"{p}.options.{k}.description", "Must be 100 or fewer in length."))
            if opt.get("value") in values:
                problems.append((f"{p}.options.{k}.value", "Select option values must be unique."))
            values.add(opt.get("value"))
    return problems


def _validate_action_row(row: JSON, p: str, *, in_modal: bool = False) -> Problems:
    problems: Problems = []
    children = row.get("components")
    if not isinstance(children, list) or not children:
        return [(f"{p}.components", "An action row needs at least one component.")]
    types = [c.get("type") for c in children]
    if in_modal:
        if types != [4] and not (len(types) == 1 and types[0] in SELECT_TYPES):
            problems.append((f"{p}.components", "A modal action row holds exactly one text input."))
    elif any(t in SELECT_TYPES for t in types):
        if len(children) != 1:
            problems.append((f"{p}.components", "A select menu must be alone in its action row."))
    elif any(t != 2 for t in types):
        problems.append((f"{p}.components", f"Invalid component types {types} in an action row."))
    elif len(children) > MAX_BUTTONS_PER_ROW:
        problems.append((f"{p}.components", f"Must be {MAX_BUTTONS_PER_ROW} or fewer in length."))
    for i, child in enumerate(children):
        cp = f"{p}.components.{i}"
        if child.get("type") == 2:
            problems.extend(_validate_button(child, cp))
        elif child.get("type") in SELECT_TYPES:
            problems.extend(_validate_select(child, cp))
        elif child.get("type") == 4:
            problems.extend(_validate_text_input(child, cp))
    return problems


def _validate_custom_ids(components: list[JSON]) -> Problems:
    problems: Problems = []
    seen: set[str] = set()
    for comp in iter_components(components):
        cid = comp.get("custom_id")
        if cid is None:
            continue
        if not isinstance(cid, str) or not cid:
            problems.append(("components", f"Invalid custom_id {cid!r}."))
            continue
        if len(cid) > MAX_CUSTOM_ID:
            problems.append(("components", f"custom_id must be {MAX_CUSTOM_ID} or fewer in length: {cid!r}"))
        if cid in seen:
            problems.append(("components", f"Component custom id cannot be duplicated: {cid!r}"))
        seen.add(cid)
    return problems


def _validate_media(media: Any, p: str) -> Problems:
    if not isinstance(media, dict) or not isinstance(media.get("url"), str) or not media["url"]:
        return [(f"{p}.url", "This field is required")]
    return []


def _validate_section(comp: JSON, p: str) -> Problems:
    """A section: 1 to 3 text displays beside a button or a thumbnail."""
    problems: Problems = []
    texts = comp.get("components")
    if not isinstance(texts, list) or not 1 <= len(texts) <= MAX_SECTION_TEXTS:
        problems.append((f"{p}.components", f"A section holds 1 to {MAX_SECTION_TEXTS} text displays."))
    else:
        problems.extend(_validate_layout(texts, {10}, f"{p}.components"))
    accessory = comp.get("accessory")
    if not isinstance(accessory, dict) or accessory.get("type") not in (2, 11):
        problems.append((f"{p}.accessory", "A section needs a button or a thumbnail accessory."))
    elif accessory["type"] == 2:
        problems.extend(_validate_button(accessory, f"{p}.accessory"))
    else:
        problems.extend(_validate_media(accessory.get("media"), f"{p}.accessory.media"))
    return problems


def _validate_gallery(comp: JSON, p: str) -> Problems:
    items = comp.get("items")
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_GALLERY_ITEMS:
        return [(f"{p}.items", f"Must be between 1 and {MAX_GALLERY_ITEMS} in length.")]
    problems: Problems = []
    for k, item in enumerate(items):
        ip = f"{p}.items.{k}"
        if not isinstance(item, dict):
            problems.append((ip, "Must be an object"))
            continue
        problems.extend(_validate_media(item.get("media"), f"{ip}.media"))
        if _length(item.get("description")) > MAX_MEDIA_DESCRIPTION:
            problems.append((f"{ip}.description", f"Must be {MAX_MEDIA_DESCRIPTION} or fewer in length."))
    return problems


def _validate_v2_component(comp: JSON, p: str) -> Problems:
    """One layout or content component of a components V2 message, children included."""
    ctype = comp.get("type")
    if ctype == 1:
        return _validate_action_row(comp, p)
    if ctype == 9:
        return _validate_section(comp, p)
    if ctype == 10 and (not isinstance(comp.get("content"), str) or not comp["content"]):
        return [(f"{p}.content", "This field is required")]
    if ctype == 12:
        return _validate_gallery(comp, p)
    if ctype == 13:
        return _validate_media(comp.get("file"), f"{p}.file")
    if ctype == 14 and comp.get("spacing", 1) not in (1, 2):
        return [(f"{p}.spacing", "Separator spacing must be 1 (small) or 2 (large).")]
    if ctype == 17:
        children = comp.get("components")
        if not isinstance(children, list) or not children:
            return [(f"{p}.components", "A container needs at least one component.")]
        return _validate_layout(children, V2_IN_CONTAINER, f"{p}.components")
    return []


def _validate_layout(components: list[Any], allowed: set[int], path: str) -> Problems:
    problems: Problems = []
    for i, comp in enumerate(components):
        if not isinstance(comp, dict) or comp.get("type") not in allowed:
            ctype = comp.get("type") if isinstance(comp, dict) else comp
            problems.append((f"{path}.{i}.type", f"Component type {ctype} not allowed here."))
            continue
        problems.extend(_validate_v2_component(comp, f"{path}.{i}"))
    return problems


def _validate_component_ids(components: list[JSON], path: str) -> Problems:
    """Discord: a component's numeric `id`, when given, is unique within the message."""
    seen: set[Any] = set()
    problems: Problems = []
    for comp in iter_components(components):
        cid = comp.get("id")
        if cid is None:
            continue
        if cid in seen:
            problems.append((path, f"Component id {cid} is used twice."))
        seen.add(cid)
    return problems


def validate_components(components: Any, flags: int, path: str = "components") -> Problems:
    """Classic layout: <=5 action rows of <=5 buttons or one select. V2: nested layout, <=40 items."""
    if components is None:
        return []
    if not isinstance(components, list):
        return [(path, "Must be an array")]
    problems: Problems = []
    if flags & FLAG_IS_COMPONENTS_V2:
        total = sum(1 for _ in iter_components(components))
        if total > MAX_V2_COMPONENTS:
            problems.append((path, f"Must be {MAX_V2_COMPONENTS} or fewer components in total (got {total})."))
        text = sum(_length(c.get("content")) for c in iter_components(components) if c.get("type") == 10)
        if text > MAX_V2_TEXT:
            problems.append((path, f"Text displays exceed {MAX_V2_TEXT} characters (got {text})."))
        problems.extend(_validate_layout(components, V2_TOP_LEVEL, path))
        problems.extend(_validate_component_ids(components, path))
    else:
        if len(components) > MAX_ACTION_ROWS:
            problems.append((path, f"Must be {MAX_ACTION_ROWS} or fewer in length (got {len(components)})."))
        for i, row in enumerate(components):
            if not isinstance(row, dict) or row.get("type") != 1:
                problems.append((f"{path}.{i}.type", "Top-level components must be action rows (type 1)."))
                continue
            problems.extend(_validate_action_row(row, f"{path}.{i}"))
    problems.extend(_validate_custom_ids(components))
    return problems


def validate_message(body: JSON, *, attachments_count: int, creating: bool) -> Problems:
    """Content/embeds/components limits of a message create or edit (already merged for edits)."""
    problems: Problems = []
    flags = int(body.get("flags") or 0)
    content = body.get("content") or ""
    if not isinstance(content, str):
        problems.append(("content", "Must be a string"))
        content = str(content)
    if len(content) > MAX_CONTENT:
        problems.append(("content", f"Must be {MAX_CONTENT} or fewer in length (got {len(content)})."))
    embeds = body.get("embeds") or []
    problems.extend(validate_embeds(embeds))
    components = body.get("components") or []
    problems.extend(validate_components(components, flags))
    if flags & FLAG_IS_COMPONENTS_V2 and (content or embeds):
        problems.append(("content", "content and embeds cannot be used with IS_COMPONENTS_V2."))
    if creating and not (content or embeds or components or attachments_count or body.get("sticker_ids")):
        problems.append(("content", "Cannot send an empty message"))
    return problems


def validate_nonce(nonce: Any) -> Problems:
    """A message nonce is an integer or a string of at most 25 characters."""
    if isinstance(nonce, bool) or not isinstance(nonce, int | str):
        return [("nonce", "Must be a string or an integer.")]
    if isinstance(nonce, str) and len(nonce) > MAX_NONCE:
        return [("nonce", f"Must be {MAX_NONCE} or fewer in length (got {len(nonce)}).")]
    return []


def _validate_text_input(comp: JSON, p: str) -> Problems:
    problems: Problems = []
    if not comp.get("custom_id"):
        problems.append((f"{p}.custom_id", "This field is required"))
    if comp.get("style") not in (1, 2):
        problems.append((f"{p}.style", "Text input style must be 1 or 2."))
    if _length(comp.get("label")) > 45:
        problems.append((f"{p}.label", "Must be 45 or fewer in length."))
    for key in ("min_length", "max_length"):
        value = comp.get(key)
        if value is not None and not 0 <= value <= 4000:
            problems.append((f"{p}.{key}", "Must be between 0 and 4000."))
    if _length(comp.get("value")) > 4000:
        problems.append((f"{p}.value", "Must be 4000 or fewer in length."))
    if _length(comp.get("placeholder")) > 100:
        problems.append((f"{p}.placeholder", "Must be 100 or fewer in length."))
    return problems


def validate_modal(data: JSON) -> Problems:
    problems: Problems = []
    if not data.get("custom_id") or _length(data.get("custom_id")) > MAX_CUSTOM_ID:
        problems.append(("data.custom_id", "Must be between 1 and 100 in length."))
    if not data.get("title") or _length(data.get("title")) > 45:
        problems.append(("data.title", "Must be between 1 and 45 in length."))
    components = data.get("components") or []
    if not 1 <= len(components) <= 5:
        problems.append(("data.components", "Must be between 1 and 5 in length."))
    for i, comp in enumerate(components):
        p = f"data.components.{i}"
        if comp.get("type") == 1:
            problems.extend(_validate_action_row(comp, p, in_modal=True))
        elif comp.get("type") == 18:  # label wrapping one component
            if _length(comp.get("label")) > 45:
                problems.append((f"{p}.label", "Must be 45 or fewer in length."))
            inner = comp.get("component") or {}
            if inner.get("type") == 4:
                problems.extend(_validate_text_input(inner, f"{p}.component"))
        elif comp.get("type") != 10:
            problems.append((f"{p}.type", f"Component type {comp.get('type')} not allowed in a modal."))
    problems.extend(_validate_custom_ids(components))
    return problems


def validate_choices(data: JSON) -> Problems:
    problems: Problems = []
    choices = data.get("choices")
    if not isinstance(choices, list):
        return [("data.choices", "This field is required")]
    if len(choices) > MAX_CHOICES:
        problems.append(("data.choices", f"Must be {MAX_CHOICES} or fewer in length (got {len(choices)})."))
    for i, choice in enumerate(choices):
        name = choice.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            problems.append((f"data.choices.{i}.name", "Must be between 1 and 100 in length."))
        value = choice.get("value")
        if isinstance(value, str) and len(value) > 100:
            problems.append((f"data.choices.{i}.value", "Must be 100 or fewer in length."))
    return problems


def _validate_options(options: list[JSON], p: str, depth: int) -> Problems:
    problems: Problems = []
    if len(options) > 25:
        problems.append((p, "Must be 25 or fewer in length."))
    names: set[str] = set()
    seen_optional = False
    has_sub = any(o.get("type") in (1, 2) for o in options)
    for i, opt in enumerate(options):
        op = f"{p}.{i}"
        name = opt.get("name", "")
        otype = opt.get("type")
        if not isinstance(name, str) or not COMMAND_NAME_RE.match(name) or name != name.lower():
            problems.append((f"{op}.name", f"Invalid option name {name!r}."))
        if name in names:
            problems.append((f"{op}.name", f"Duplicate option name {name!r}."))
        names.add(name)
        if not 1 <= _length(opt.get("description")) <= 100:
            problems.append((f"{op}.description", "Must be between 1 and 100 in length."))
        if has_sub and otype not in (1, 2):
            problems.append((op, "Cannot mix subcommands with plain options."))
        if otype in (1, 2):
            if depth >= 2 or (otype == 2 and depth >= 1):
                problems.append((op, "Subcommands nested too deeply."))
            sub = opt.get("options") or []
            if otype == 2 and any(o.get("type") != 1 for o in sub):
                problems.append((op, "A subcommand group can only contain subcommands."))
            problems.extend(_validate_options(sub, f"{op}.options", depth + 1))
            continue
        if opt.get("required"):
            if seen_optional:
                problems.append((op, "Required options must be placed before non-required options."))
        else:
            seen_optional = True
        choices = opt.get("choices") or []
        if len(choices) > MAX_CHOICES:
            problems.append((f"{op}.choices", f"Must be {MAX_CHOICES} or fewer in length."))
        if choices and opt.get("autocomplete"):
            problems.append((op, "Autocomplete and choices are mutually exclusive."))
    return problems


def validate_command(cmd: Any) -> Problems:
    if not isinstance(cmd, dict):
        return [("", "Must be an object")]
    problems: Problems = []
    ctype = cmd.get("type", 1)
    name = cmd.get("name", "")
    if not isinstance(name, str) or not 1 <= len(name) <= 32:
        problems.append(("name", "Must be between 1 and 32 in length."))
    elif ctype == 1 and (not COMMAND_NAME_RE.match(name) or name != name.lower()):
        problems.append(("name", f"Invalid chat input command name {name!r}."))
    if ctype == 1:
        if not 1 <= _length(cmd.get("description")) <= 100:
            problems.append(("description", "Must be between 1 and 100 in length."))
        problems.extend(_validate_options(cmd.get("options") or [], "options", 0))
    return problems


# Discord's spec templates of the calls authenticated by the token in their path, not the bot's.
TOKEN_ROUTES = ("/webhooks/{webhook_id}/{webhook_token}", "/interactions/{interaction_id}/{interaction_token}/callback")


def validate_token_auth(template: str, authorization: str | None) -> Problems:
    """No bot token on webhook-token calls and interaction callbacks.

    Discord authenticates them by the interaction (or webhook) token in the path and keeps them
    off the bot's global rate limit; a bot token sent along means the call went through the bot's
    own HTTP client, the one that also queues behind the bot's global limit.
    """
    if authorization is not None and template.startswith(TOKEN_ROUTES):
        return [("headers.Authorization", f"{template} takes no Authorization header: the token is in the path.")]
    return []


def errors_to_discord(problems: Problems) -> JSON:
    """Nest `(a.b.0, msg)` problems into Discord's `errors` object that discord.py flattens."""
    root: JSON = {}
    for path, message in problems:
        node = root
        for part in [p for p in path.split(".") if p]:
            node = node.setdefault(part, {})
        node.setdefault("_errors", []).append({"code": "INVALID", "message": message})
    return root
