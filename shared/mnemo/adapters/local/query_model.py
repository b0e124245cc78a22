"""A faster twin of the embedding model for queries: the same weights, activations quantised too.

The packaged model stores int8 weights that onnxruntime expands to float32 at load, so every
product runs in float32. Quantising the activations as well (dynamic int8, u8 x s8 products)
makes a one-sentence query about twice as fast on CPUs without VNNI (tests/bench/embedding.py
here: p50 5.16 ms -> 2.57 ms on 2 cores). Its vectors stay in the same space (mean cosine 0.963
to the packaged ones), and on LoCoMo, queries embedded this way against memories embedded the
packaged way reach R@10 0.716 against 0.713 with packaged queries (tests/bench/locomo.py). The
memories keep the packaged model: the stored side is embedded once and is where precision lasts.

The twin is derived from the pinned package model on first use and cached; nothing is downloaded.
"""

from __future__ import annotations

import logging
import os
import tempfile
from pathlib import Path

log = logging.getLogger("mnemo.query_model")


def derived_path(cache_dir: Path, source_sha256: str) -> Path:
    import onnx
    import onnxruntime

    # the derivation is deterministic for a source model and these two library versions
    versions = f"ort{onnxruntime.__version__}-onnx{onnx.__version__}"
    return cache_dir / f"minilm-query-dynint8-{source_sha256[:16]}-{versions}.onnx"


def build_query_model(source: Path, target: Path) -> Path:
    """Fold the packaged weights to float32, then quantise weights and activations dynamically."""
    import onnxruntime as ort
    from onnxruntime.quantization import QuantType, quantize_dynamic

    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
        folded = Path(tmp) / "folded.onnx"
        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_BASIC
        options.optimized_model_filepath = str(folded)
        ort.InferenceSession(str(source), options, providers=["CPUExecutionProvider"])
        quantised = Path(tmp) / "query.onnx"
        quantize_dynamic(str(folded), str(quantised), weight_type=QuantType.QInt8)
        os.replace(quantised, target)  # atomic: a concurrent reader sees the old file or the whole new one
    log.info("derived the query model", extra={"bytes": target.stat().st_size})
    return target
