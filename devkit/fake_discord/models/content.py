"""What a message carries besides its text: uploaded files (their bytes kept for tests), and the walk over
its components, nested ones included."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ..jsontypes import JSON


@dataclass(eq=False)
class FakeAttachment:
    """An uploaded file; the bytes are kept so tests can inspect them."""

    id: int
    filename: str
    data: bytes
    content_type: str | None = None
    description: str | None = None

    def to_payload(self, base_url: str, channel_id: int) -> JSON:
        url = f"{base_url}/attachments/{channel_id}/{self.id}/{self.filename}"
        payload: JSON = {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
        }
        if self.description is not None:
            payload["description"] = self.description
        return payload


def iter_components(components: list[JSON]) -> Iterator[JSON]:
    """Depth-first walk over (possibly nested, components V2) message components."""
    for comp in components:
        if not isinstance(comp, dict):
            continue
        yield comp
        children = comp.get("components")
        if isinstance(children, list):
            yield from iter_components(children)
        accessory = comp.get("accessory")
        if isinstance(accessory, dict):
            yield accessory
        inner = comp.get("component")
        if isinstance(inner, dict):
            yield inner
