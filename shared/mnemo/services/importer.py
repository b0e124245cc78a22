"""`mnemo import FILE`: bulk load of curated memories from JSON, in batches, with progress."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from mnemo.clock import Clock
from mnemo.domain.models import Category, SourceKind
from mnemo.errors import InvalidInput
from mnemo.services.facts import fact_from_api
from mnemo.services.writing import MemoryWriter, validate_content

BATCH = 500


class FileItem(BaseModel):
    """One memory in an import file; ``user_id`` may come from the item or the command line."""

    model_config = ConfigDict(extra="forbid")

    user_id: str | None = Field(None, pattern=r"^[A-Za-z0-9._:@-]{1,128}$")
    content: str = Field(min_length=1)
    category: Category | None = None
    subject: str | None = None
    scope: str | None = None
    project_id: str | None = None
    session_id: str | None = None
    expires_at: datetime | None = None
    created_at: datetime | None = None
    confidence: float | None = Field(None, ge=0, le=1)
    metadata: dict[str, str] | None = None


def _items(document: Any) -> list[dict[str, Any]]:
    if isinstance(document, dict) and "items" in document:
        document = document["items"]
    if not isinstance(document, list):
        raise InvalidInput("the file must hold a JSON list of memories or {\"items\": [...]}")
    return document


def import_file(writer: MemoryWriter, clock: Clock, path: Path, *, tenant_id: str, default_user: str | None,
                max_chars: int, resolve_conflicts: bool = False,
                progress: Callable[[int, int], object] | None = None) -> dict[str, Any]:
    try:
        raw = _items(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput(f"cannot read {path.name}: {exc}") from exc
    items: list[FileItem] = []
    for position, entry in enumerate(raw):
        try:
            item = FileItem.model_validate(entry)
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first["loc"])
            raise InvalidInput(f"item {position}: {field}: {first['msg']}") from exc
        try:
            validate_content(item.content, max_chars)
        except InvalidInput as exc:  # every item is checked before anything is written
            raise InvalidInput(f"item {position}: content: {exc.message}") from exc
        if item.user_id is None and default_user is None:
            raise InvalidInput(f"item {position} names no user_id and no --user was given")
        items.append(item)
    by_user: dict[str, list[FileItem]] = {}
    for item in items:
        by_user.setdefault(item.user_id or str(default_user), []).append(item)
    outcomes: Counter[str] = Counter()
    done = 0
    now = clock.now()
    for user_id, user_items in by_user.items():
        for start in range(0, len(user_items), BATCH):
            batch = user_items[start:start + BATCH]
            facts = [fact_from_api(i, now, SourceKind.IMPORTED, default_confidence=0.9, max_chars=max_chars)
                     for i in batch]
            for result in writer.write(tenant_id, user_id, facts, resolve_conflicts=resolve_conflicts,
                                               actor="import"):
                outcomes[result.outcome] += 1
            done += len(batch)
            if progress:
                progress(done, len(items))
    return {"items": len(items), "users": len(by_user), "outcomes": dict(outcomes)}
