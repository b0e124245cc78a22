"""The bundled embedding model for real: shape, normalisation, meaning, the query twin, checksums."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.local.model_checksums import MODEL_SHA256
from mnemo.adapters.local.onnx_embedder import DIMENSION, OnnxMiniLmEmbedder, model_paths
from mnemo.adapters.local.query_model import derived_path
from mnemo.errors import ConfigurationError
from mnemo.ports import Embedder

SENTENCES = ["I love spicy Thai food.", "User likes hot Thai cuisine.", "The capital of France is Paris.",
             "Where does my sister live these days?", "User's sister Maria lives in Porto."]


def test_vectors_are_unit_length_and_carry_meaning(embedder: Embedder) -> None:
    vectors = embedder.embed(SENTENCES)
    assert vectors.shape == (len(SENTENCES), DIMENSION)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = vectors @ vectors.T
    assert sims[0, 1] > 0.6 > sims[0, 2]
    assert sims[3, 4] > sims[3, 2]


def test_batching_does_not_change_the_result(embedder: Embedder) -> None:
    one_by_one = np.stack([embedder.embed([s])[0] for s in SENTENCES])
    assert np.allclose(one_by_one, embedder.embed(SENTENCES), atol=1e-4)


def test_query_twin_shares_the_space(embedder: Embedder) -> None:
    docs = embedder.embed(SENTENCES)
    queries = embedder.embed_queries(SENTENCES)
    assert np.all(np.sum(docs * queries, axis=1) > 0.93)
    # the nearest document of each query is its own text
    assert list(np.argmax(queries @ docs.T, axis=1)) == list(range(len(SENTENCES)))


def test_query_twin_is_derived_once_and_rebuilt_when_damaged(tmp_path: Path) -> None:
    OnnxMiniLmEmbedder(query_model_cache=tmp_path)
    target = derived_path(tmp_path, MODEL_SHA256)
    built = target.stat().st_mtime_ns
    OnnxMiniLmEmbedder(query_model_cache=tmp_path)
    assert target.stat().st_mtime_ns == built
    target.write_bytes(b"not a model")
    twin = OnnxMiniLmEmbedder(query_model_cache=tmp_path)
    assert twin.embed_queries(["hello"]).shape == (1, DIMENSION)


def test_a_tampered_model_is_refused(tmp_path: Path) -> None:
    model, tokenizer = model_paths()
    (tmp_path / "model.onnx").write_bytes(model.read_bytes()[:-1] + b"\x00")
    (tmp_path / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    with pytest.raises(ConfigurationError):
        OnnxMiniLmEmbedder(model_dir=tmp_path)
