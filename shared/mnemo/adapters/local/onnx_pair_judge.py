"""The cross-encoder judge of endings on onnxruntime: one fact and one message read jointly per run.

The weights are package data (``mnemo/models/ending-cross-int8.onnx``, written by ``mnemo.training.ending_encoder``);
the tokenizer is the bundled MiniLM's. One pair per run: the int8 activations are quantised per run, so a pair
read in a batch with others would get other scores.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from mnemo.adapters.local.onnx_embedder import model_paths

MAX_TOKENS = 192  # as trained (mnemo.training.ending_encoder)


class OnnxPairJudge:
    """The probability that a message ends a fact, from the fine-tuned cross-encoder."""

    def __init__(self, path: Path, threads: int = 1) -> None:
        self._path = path
        self._threads = threads
        self._session: Any = None
        self._tokenizer: Any = None
        self._lock = threading.Lock()

    def _load(self) -> tuple[Any, Any]:
        with self._lock:
            if self._session is None:
                import onnxruntime as ort
                from tokenizers import Tokenizer

                tokenizer = Tokenizer.from_file(str(model_paths()[1]))
                tokenizer.enable_truncation(MAX_TOKENS)
                tokenizer.no_padding()
                options = ort.SessionOptions()
                options.intra_op_num_threads = self._threads
                options.inter_op_num_threads = 1
                # no busy-waiting between runs (see onnx_embedder: spinning took CPU from the serving workers)
                options.add_session_config_entry("session.intra_op.allow_spinning", "0")
                options.add_session_config_entry("session.inter_op.allow_spinning", "0")
                self._session = ort.InferenceSession(str(self._path), options, providers=["CPUExecutionProvider"])
                self._tokenizer = tokenizer
        return self._session, self._tokenizer

    def probability(self, statement: str, message: str) -> float:
        session, tokenizer = self._load()
        encoded = tokenizer.encode(statement, message)
        ids = np.array([encoded.ids], dtype=np.int64)
        out = session.run(None, {"input_ids": ids, "attention_mask": np.ones_like(ids),
                                 "token_type_ids": np.array([encoded.type_ids], dtype=np.int64)})
        return float(out[0][0])
