"""Issue 15, sixth pass: the question's side of the embedding model fine-tuned, search's query encoder.

Runs the search of locomo.py's ``evaluate`` over one half with retrieve's query twin, with the shipped search
query encoder (``make search-model``: trained on conversations written for it, never on LoCoMo), and, given
``--towers DIR``, with query towers that ``make query-towers`` trained on LoCoMo's tuning half (measured, never
shipped): for the tuning half, ``DIR/<conversation>.onnx`` is the tower trained on the other two tuning
conversations (so each is scored on questions it never saw); for the checking half, ``DIR/all.onnx``, trained on
all three. Stored memories keep their vectors. Each variant of settings (``--variant``) is run with each.

    .venv/bin/python tests/bench/locomo_query_tower.py [--towers DIR] [--tower FILE] [--half tuning|checking]
        [--variant JSON]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import InProcessClient
from locomo import evaluate, import_turns
from locomo_data import CATEGORY, DEFAULT_DATA, select, turns_of

from mnemo.adapters.local.onnx_embedder import OnnxMiniLmEmbedder
from mnemo.api.app import create_app
from mnemo.bootstrap import build_local
from mnemo.clock import ManualClock
from mnemo.settings import Settings

TWIN = "retrieve's query twin"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--towers", type=Path)
    parser.add_argument("--tower", type=Path, help="one more search encoder for every conversation (a candidate)")
    parser.add_argument("--half", choices=("tuning", "checking"), default="tuning")
    parser.add_argument("--variant", action="append", default=[], help='settings over the defaults, as JSON')
    args = parser.parse_args()
    data = select(json.loads(args.data.read_text()), args.half)
    clock = ManualClock(max(t[2] for s in data for t in turns_of(s)) + timedelta(days=1))
    workdir = Path(tempfile.mkdtemp(prefix="mnemo-locomo-tower-"))
    try:
        base = Settings(data_dir=workdir, retention_days=dict.fromkeys(Settings().retention_days))
        service = build_local(base, clock=clock)
        try:
            id_to_dia, _, _ = import_turns(service, data)
            client = InProcessClient(create_app(service))
            queries = service.retriever.search_queries
            encoders = {TWIN: service.retriever.queries.get,
                        "shipped search query encoder": queries.get}
            if args.tower is not None:
                encoders[f"candidate {args.tower.name}"] = asked_through({s["sample_id"]: args.tower for s in data})
            if args.towers is not None:
                encoders["LoCoMo-tuned query tower"] = asked_through({s["sample_id"]: args.towers / (
                    f"{s['sample_id']}.onnx" if args.half == "tuning" else "all.onnx") for s in data})
            print(f"\nLoCoMo {args.half} half, R@10 by category")
            print(f"  {'variant':<58} " + " ".join(f"{c[:7]:>7}" for c in ["all", *CATEGORY.values()]))
            for variant in [{}, *(json.loads(v) for v in args.variant)]:
                settings = base.model_copy(update=variant)
                for name, encoder in encoders.items():
                    # search without its own encoder weighs words as retrieve does (Retriever.search)
                    object.__setattr__(service.ports, "settings", settings if name != TWIN else settings.model_copy(
                        update={"search_lexical_weight": settings.lexical_weight}))
                    queries.get = encoder
                    metrics = evaluate(client, data, id_to_dia, clock)["metrics"]
                    label = name + (f", {json.dumps(variant)}" if variant else "")
                    cells = " ".join(f"{metrics[c]['R@10']:7.3f}" for c in ["all", *CATEGORY.values()])
                    print(f"  {label:<58} {cells}   R@5 {metrics['all']['R@5']:.3f} R@20 {metrics['all']['R@20']:.3f}",
                          flush=True)
        finally:
            service.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def asked_through(towers: dict[str, Path]) -> Any:
    """The retriever's query lookup through each user's tower (cached per user and text, as the shipped one is)."""
    embedders = {user: OnnxMiniLmEmbedder(verify=False, query_model=path) for user, path in towers.items()}
    cache: dict[tuple[str, str], np.ndarray] = {}

    def get(text: str, tenant_id: str = "", user_id: str = "") -> np.ndarray:
        if (user_id, text) not in cache:
            cache[user_id, text] = embedders[user_id].embed_queries([text])[0]
        return cache[user_id, text]
    return get


if __name__ == "__main__":
    raise SystemExit(main())
