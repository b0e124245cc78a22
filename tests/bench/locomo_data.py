"""LoCoMo's development conversations as the benchmarks read them (see ../shared/data/README.md): the file,
the frozen split, each conversation's turns. No import of mnemo's service, so the training venv reads them too
(mnemo.training.query_tower)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

DEFAULT_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "locomo-dev.json"
SPLIT = Path(__file__).resolve().parent / "locomo_split.json"
CATEGORY = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop"}


def select(data: list[dict[str, Any]], half: str) -> list[dict[str, Any]]:
    """The conversations of one half of the frozen split (all of them for ``all``)."""
    if half == "all":
        return data
    wanted = set(json.loads(SPLIT.read_text())[half])
    return [s for s in data if s["sample_id"] in wanted]


def session_date(text: str) -> datetime:
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def turns_of(sample: dict[str, Any]) -> list[tuple[str, str, datetime]]:
    conv = sample["conversation"]
    out = []
    n = 1
    while f"session_{n}" in conv:
        when = session_date(conv[f"session_{n}_date_time"])
        for i, turn in enumerate(conv[f"session_{n}"]):
            text = turn.get("text", "")
            if turn.get("blip_caption"):
                text = f"{text} [shares a photo of {turn['blip_caption']}]"
            out.append((turn["dia_id"], f"{turn['speaker']}: {text}", when + timedelta(seconds=i)))
        n += 1
    return out
