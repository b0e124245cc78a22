"""The bundled embedding model for real: shape, normalisation, meaning, the query twin, the extraction encoder,
checksums."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.local.model_checksums import EXTRACTOR_ENCODER_SHA256, QUERY_MODEL_SHA256, SEARCH_MODEL_SHA256
from mnemo.adapters.local.onnx_embedder import (
    DIMENSION,
    EXTRACTOR_ENCODER_PATH,
    QUERY_MODEL_PATH,
    SEARCH_MODEL_PATH,
    OnnxMiniLmEmbedder,
    extraction_encoder,
    model_paths,
    sha256_of,
)
from mnemo.errors import ConfigurationError
from mnemo.ports import Embedder
from mnemo.training.query_model import build_query_model

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


def test_the_shipped_query_twin_is_what_the_derivation_gives(tmp_path: Path) -> None:
    # given the locked onnxruntime and onnx, when the twin is derived again from the packaged model,
    # then it is the shipped file byte for byte (otherwise: `make query-model`)
    model, _ = model_paths()
    derived = build_query_model(model, tmp_path / "query.onnx")
    assert sha256_of(derived) == sha256_of(QUERY_MODEL_PATH) == QUERY_MODEL_SHA256


def test_the_query_twin_loads_without_the_onnx_package() -> None:
    # the server's install has onnxruntime but not onnx (the quantiser's dependency): nothing on the
    # query path may need it
    code = ("import sys; sys.modules['onnx'] = None\n"
            "from mnemo.adapters.local.onnx_embedder import QUERY_MODEL_PATH, OnnxMiniLmEmbedder\n"
            "print(OnnxMiniLmEmbedder(query_model=QUERY_MODEL_PATH).embed_queries(['hello']).shape)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"(1, {DIMENSION})"
    assert done.stderr == ""  # no warning either


def test_a_tampered_query_twin_is_refused(tmp_path: Path) -> None:
    twin = tmp_path / "query.onnx"
    twin.write_bytes(QUERY_MODEL_PATH.read_bytes()[:-1] + b"\x00")
    with pytest.raises(ConfigurationError, match=r"query\.onnx"):
        OnnxMiniLmEmbedder(query_model=twin)
    with pytest.raises(ConfigurationError, match="missing"):
        OnnxMiniLmEmbedder(query_model=tmp_path / "absent.onnx")


def test_the_search_encoder_is_pinned_and_answers_questions_in_the_same_space(tmp_path: Path) -> None:
    # search's own query encoder ships in mnemo/models, pinned by its checksum
    assert sha256_of(SEARCH_MODEL_PATH) == SEARCH_MODEL_SHA256
    embedder = OnnxMiniLmEmbedder(query_model=QUERY_MODEL_PATH, search_model=SEARCH_MODEL_PATH)
    docs = embedder.embed(SENTENCES)
    questions = embedder.embed_search_queries(["Where does my sister live these days?", "What food do I like?"])
    assert np.allclose(np.linalg.norm(questions, axis=1), 1.0, atol=1e-5)
    # another model than retrieve's twin, scoring against the same stored vectors
    twin = embedder.embed_queries(["Where does my sister live these days?"])
    assert float(questions[0] @ twin[0]) < 0.9999
    assert int(np.argmax(docs[[1, 2, 4]] @ questions[0])) == 2  # the sister's city
    assert int(np.argmax(docs[[1, 2, 4]] @ questions[1])) == 0  # the Thai food
    # without one, search's questions go through the query twin
    assert np.allclose(OnnxMiniLmEmbedder(query_model=QUERY_MODEL_PATH).embed_search_queries(["hello"]),
                       OnnxMiniLmEmbedder(query_model=QUERY_MODEL_PATH).embed_queries(["hello"]))
    tampered = tmp_path / "search.onnx"
    tampered.write_bytes(SEARCH_MODEL_PATH.read_bytes()[:-1] + b"\x00")
    with pytest.raises(ConfigurationError, match=r"search\.onnx"):
        OnnxMiniLmEmbedder(search_model=tampered)


def test_a_tampered_model_is_refused(tmp_path: Path) -> None:
    model, tokenizer = model_paths()
    (tmp_path / "model.onnx").write_bytes(model.read_bytes()[:-1] + b"\x00")
    (tmp_path / "tokenizer.json").write_bytes(tokenizer.read_bytes())
    with pytest.raises(ConfigurationError):
        OnnxMiniLmEmbedder(model_dir=tmp_path)


def test_the_extraction_encoder_is_checked_and_gives_states_for_every_piece(tmp_path: Path) -> None:
    # the fine-tuned MiniLM the tagger reads ships in mnemo/models, pinned by its checksum
    assert sha256_of(EXTRACTOR_ENCODER_PATH) == EXTRACTOR_ENCODER_SHA256
    encoder = extraction_encoder()
    [states] = encoder.encode_tokens(["hey im dana, 41, nurse, based in leeds"])
    assert states.states.shape == (len(states.offsets), DIMENSION)
    assert states.offsets[0] == (0, 3)
    # a different model from the query twin: its states are not the twin's
    [twin] = OnnxMiniLmEmbedder(query_model=QUERY_MODEL_PATH).encode_tokens(["hey im dana, 41, nurse, based in leeds"])
    assert not np.allclose(states.states, twin.states, atol=1e-2)
    tampered = tmp_path / "encoder.onnx"
    tampered.write_bytes(EXTRACTOR_ENCODER_PATH.read_bytes()[:-1] + b"\x00")
    with pytest.raises(ConfigurationError, match=r"encoder\.onnx"):
        extraction_encoder(encoder=tampered)


def test_a_message_gets_the_same_token_states_whatever_is_read_beside_it() -> None:
    # the int8 encoder quantises activations with one scale per run: read in a batch, a message's states
    # would depend on its neighbours (and so would its facts)
    encoder = extraction_encoder()
    message = "Ok gracias. Ah, y soy alérgica a la penicilina, por si algún día te pregunto de medicinas."
    neighbour = ("Genial. Soy enfermera en el Hospital La Paz, en Madrid, y esta semana hago turnos de noche. "
                 "Qué puedo cenar a las 3am que no sea pesado? ") * 2
    [alone] = encoder.encode_tokens([message])
    beside = encoder.encode_tokens([neighbour, message])[1]
    assert alone.offsets == beside.offsets
    np.testing.assert_array_equal(alone.states, beside.states)
