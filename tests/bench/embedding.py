"""The embedding model on this machine: packaged model vs the dynamic-int8 query twin.

Prints per-query latency (p50/p95) of both, batch throughput for fact-sized memories, and how
close the twin's vectors are to the packaged ones (mean cosine, and whether each query's nearest
memory is the same). Writes JSON.

    .venv/bin/python tests/bench/embedding.py
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import percentiles, write_result
from corpus import memories, questions

from mnemo.adapters.local.onnx_embedder import QUERY_MODEL_PATH, OnnxMiniLmEmbedder


def timed(fn: object, texts: list[str]) -> list[float]:
    out = []
    for text in texts:
        started = time.perf_counter()
        fn([text])  # type: ignore[operator]
        out.append((time.perf_counter() - started) * 1000)
    return out


def one_and_two(embed: object, texts: list[str]) -> tuple[list[float], list[float]]:
    """Each query alone and with a second text in the same run (issue 15: a second query vector, the question
    without its names, computed beside the question's own), interleaved so both see the same machine."""
    alone: list[float] = []
    paired: list[float] = []
    for text in texts:
        second = " ".join(w for w in text.split() if not w[:1].isupper()) or text
        for out, batch in ((alone, [text]), (paired, [text, second])):
            started = time.perf_counter()
            embed(batch)  # type: ignore[operator]
            out.append((time.perf_counter() - started) * 1000)
    return alone, paired


def main() -> int:
    model = OnnxMiniLmEmbedder(query_model=QUERY_MODEL_PATH)
    qs = questions(300)
    facts = memories(1000, seed=5)
    for text in qs[:20]:
        model.embed([text])
        model.embed_queries([text])
    packaged = percentiles(timed(model.embed, qs[20:160]))
    twin = percentiles(timed(model.embed_queries, qs[160:300]))
    alone, paired = (percentiles(t) for t in one_and_two(model.embed_queries, qs[20:300]))
    started = time.perf_counter()
    docs = model.embed(facts)
    per_second = len(facts) / (time.perf_counter() - started)
    q_packaged, q_twin = model.embed(qs), model.embed_queries(qs)
    fidelity = float(np.mean(np.sum(q_packaged * q_twin, axis=1)))
    same_nearest = float(np.mean(np.argmax(q_packaged @ docs.T, axis=1) == np.argmax(q_twin @ docs.T, axis=1)))
    report = {"query_packaged_ms": packaged, "query_twin_ms": twin, "memories_per_second": round(per_second, 1),
              "twin_cosine_to_packaged": round(fidelity, 4), "same_nearest_memory": round(same_nearest, 4),
              "query_twin_alone_ms": alone, "query_twin_with_a_second_text_ms": paired}
    print(f"query, packaged model   p50 {packaged['p50']:.2f} ms  p95 {packaged['p95']:.2f} ms")
    print(f"query, dynamic-int8 twin p50 {twin['p50']:.2f} ms  p95 {twin['p95']:.2f} ms")
    print(f"query, twin, with a second text in the same run p50 {paired['p50']:.2f} ms  p95 {paired['p95']:.2f} ms "
          f"(alone, interleaved: p50 {alone['p50']:.2f} ms, p95 {alone['p95']:.2f} ms; "
          f"{paired['p50'] / alone['p50']:.2f}x)")
    print(f"fact-sized memories      {per_second:.0f} per second (packaged model, batches of 64)")
    print(f"twin vs packaged         mean cosine {fidelity:.4f}, same nearest memory {same_nearest:.1%}")
    print(f"wrote {write_result('embedding', report)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
