"""Derives the faster twin of the embedding model for queries: the same weights, activations quantised too.

The packaged model stores int8 weights that onnxruntime expands to float32 at load, so every
product runs in float32. Quantising the activations as well (dynamic int8, u8 x s8 products)
makes a one-sentence query about twice as fast on CPUs without VNNI (tests/bench/embedding.py
here: p50 5.16 ms -> 2.57 ms on 2 cores). Its vectors stay in the same space (mean cosine 0.963
to the packaged ones), and on LoCoMo, queries embedded this way against memories embedded the
packaged way reach R@10 0.716 against 0.713 with packaged queries (tests/bench/locomo.py). The
memories keep the packaged model: the stored side is embedded once and is where precision lasts.

The twin is derived here, at development time, and shipped in mnemo/models (`make query-model`
writes it; tests/integration/test_embedder.py checks the shipped file is what this derivation
gives with the locked onnxruntime and onnx). Deriving it at a server's first start needed the
`onnx` package at run time (31 MB) and printed onnxruntime's quantiser chatter (~37 lines)
into the server's log. The derivation is deterministic for a source model and the two library
versions, so the check is byte for byte.

    python -m mnemo.training.query_model        # rewrites shared/mnemo/models/minilm-query-dynint8.onnx
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
from pathlib import Path

log = logging.getLogger("mnemo.query_model")


def build_query_model(source: Path, target: Path) -> Path:
    """Fold the packaged weights to float32, then quantise weights and activations dynamically."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    # the quantiser logs through the root logger: one "consider pre-processing" warning and a line per
    # skipped tensor, none of which applies to a model derived on purpose this way
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            folded = Path(tmp) / "folded.onnx"
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
            options.optimized_model_filepath = str(folded)
            ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
            quantised = Path(tmp) / "query.onnx"
            quantize_dynamic(str(folded), str(quantised), weight_type=QuantType.QInt8)
            os.replace(quantised, target)  # atomic: a concurrent reader sees the old file or the whole new one
    finally:
        root.setLevel(level)
    log.info("derived the query model", extra={"bytes": target.stat().st_size})
    return target


def main(argv: list[str] | None = None) -> int:
    from mnemo.adapters.local.onnx_embedder import QUERY_MODEL_PATH, model_paths, sha256_of

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=QUERY_MODEL_PATH)
    args = parser.parse_args(argv)
    model, _ = model_paths()
    build_query_model(model, args.out)
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e6:.1f} MB), sha256 {sha256_of(args.out)}: "
          "put it in mnemo/adapters/local/model_checksums.py (QUERY_MODEL_SHA256) if it changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
