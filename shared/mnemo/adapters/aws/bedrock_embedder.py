"""Amazon Titan Text Embeddings V2 behind the Embedder port (the optional AWS embedder, DESIGN.md 6).

Titan's InvokeModel takes one text per call, so a batch is spread over a small thread pool. The
vectors come back normalised by the service and are normalised again here, because the k-NN index
scores by inner product and a vector a hair off unit length would skew every score. Unlike
extraction, embedding has no fallback: a vector from another model lives in another space, so a
failure is reported (503) and the write is retried by its caller, never half-applied.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
from botocore.exceptions import BotoCoreError, ClientError

from mnemo.errors import BackendUnavailable
from mnemo.ports import Vector

DIMENSIONS = (256, 512, 1024)  # what Titan V2 can return


class TitanEmbedder:
    def __init__(self, client: Any, model_id: str, dimension: int, concurrency: int = 8) -> None:
        if dimension not in DIMENSIONS:
            raise ValueError(f"Titan V2 returns {DIMENSIONS} dimensions, not {dimension}")
        self._client = client
        self.model_id = model_id
        self.own_search_model = False  # search asks with the same model
        self.dimension = dimension
        self._pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="titan")

    def embed(self, texts: Sequence[str]) -> Vector:
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        rows = list(self._pool.map(self._one, texts)) if len(texts) > 1 else [self._one(texts[0])]
        matrix = np.asarray(rows, dtype=np.float32)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        unit: Vector = (matrix / np.maximum(norms, 1e-12)).astype(np.float32)
        return unit

    def embed_queries(self, texts: Sequence[str]) -> Vector:
        return self.embed(texts)

    def embed_search_queries(self, texts: Sequence[str]) -> Vector:
        return self.embed(texts)

    def _one(self, text: str) -> list[float]:
        body = json.dumps({"inputText": text, "dimensions": self.dimension, "normalize": True})
        try:
            response = self._client.invoke_model(modelId=self.model_id, body=body,
                                                 contentType="application/json", accept="application/json")
            vector = json.loads(response["body"].read())["embedding"]
        except (ClientError, BotoCoreError, KeyError, TypeError, ValueError) as exc:
            raise BackendUnavailable("the embedding service is unavailable",
                                     details={"error": type(exc).__name__}) from exc
        if not isinstance(vector, list) or len(vector) != self.dimension:
            raise BackendUnavailable("the embedding service answered with the wrong dimension")
        return [float(x) for x in vector]

    def close(self) -> None:
        self._pool.shutdown(wait=False)
