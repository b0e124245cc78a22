"""mnemo: long-term memory and personalization for chat applications."""

import os

# The matrix products here are small; OpenBLAS worker threads would spin on the same few
# cores onnxruntime embeds on and double the query latency (measured: 11 ms -> 5 ms per query
# embedding on 2 cores). Set before numpy loads; an explicit setting by the operator wins.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
