"""mnemo: long-term memory and personalization for chat applications."""

import os

# The matrix products here are small; OpenBLAS worker threads would spin on the same few cores
# onnxruntime embeds on and slow every query embedding down (tests/bench/embedding.py shows the
# query latency this protects). Set before numpy loads; an explicit setting by the operator wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
