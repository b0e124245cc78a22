"""Issue 15, sixth pass: the question's side of the embedding model fine-tuned (measured, not shipped).

Runs the search of locomo.py's ``evaluate`` over one half, once with the shipped query twin and once with
query towers that ``mnemo.training.query_tower`` wrote (each a dynamic-int8 MiniLM over the last hidden layer,
like the twin); stored memories keep their vectors. ``--towers DIR``: for the tuning half, ``DIR/<conversation>.onnx``
is the tower trained on the other two tuning conversations (so each is scored on questions it never saw); for the
checking half, ``DIR/all.onnx``, trained on all three. Each variant of settings (``--variant``) is run with both.

    .venv/bin/python tests/bench/locomo_query_tower.py --towers DIR [--half tuning|checking] [--variant JSON]
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


def pooled(results: dict[str, dict[str, Any]]) -> str:
    """R@10 per category and R@5 / R@20 overall, over the conversations' questions together."""
    cells = []
    for cat in ("all", *CATEGORY.values()):
        n = sum(r[cat]["n"] for r in results.values() if cat in r)
        cells.append(f"{sum(r[cat]['R@10'] * r[cat]['n'] for r in results.values() if cat in r) / n:7.3f}")
    n = sum(r["all"]["n"] for r in results.values())
    at = {k: sum(r["all"][k] * r["all"]["n"] for r in results.values()) / n for k in ("R@5", "R@20")}
    return " ".join(cells) + f"   R@5 {at['R@5']:.3f} R@20 {at['R@20']:.3f}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--towers", type=Path, required=True)
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
            queries = service.retriever.queries
            shipped = queries.get
            print(f"\nLoCoMo {args.half} half, R@10 by category")
            print(f"  {'variant':<58} " + " ".join(f"{c[:7]:>7}" for c in ["all", *CATEGORY.values()]))
            for variant in [{}, *(json.loads(v) for v in args.variant)]:
                object.__setattr__(service.ports, "settings", base.model_copy(update=variant))
                for tower in (False, True):
                    results = {}
                    for sample in data:
                        user = sample["sample_id"]
                        if tower:
                            name = f"{user}.onnx" if args.half == "tuning" else "all.onnx"
                            queries.get = asked_through(OnnxMiniLmEmbedder(verify=False,
                                                                           query_model=args.towers / name))
                        else:
                            queries.get = shipped
                        results[user] = evaluate(client, [sample], id_to_dia, clock)["metrics"]
                    label = ("fine-tuned query tower" if tower else "shipped query twin") + (
                        f", {json.dumps(variant)}" if variant else "")
                    print(f"  {label:<58} {pooled(results)}", flush=True)
        finally:
            service.close()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def asked_through(embedder: OnnxMiniLmEmbedder) -> Any:
    """The retriever's query lookup, through another query encoder (cached per text, as the shipped one is)."""
    cache: dict[str, np.ndarray] = {}

    def get(text: str, tenant_id: str = "", user_id: str = "") -> np.ndarray:
        if text not in cache:
            cache[text] = embedder.embed_queries([text])[0]
        return cache[text]
    return get


if __name__ == "__main__":
    raise SystemExit(main())
