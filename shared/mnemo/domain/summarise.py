"""Rule-based summaries of a cluster of episodic memories (the embedded default of the summariser port).

No model writes prose here: a summary fact is the most representative event of the cluster
(highest mean similarity, penalised for repeating one already chosen) framed with how often and
over which dates such events happened. An LLM summariser plugs into the same port.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from mnemo.domain.models import Memory


def representatives(vectors: npt.NDArray[np.float32], count: int, diversity: float = 0.5) -> list[int]:
    """Maximal marginal relevance over the cluster's own centroid."""
    centroid = vectors.mean(axis=0)
    centrality = vectors @ centroid
    chosen: list[int] = []
    while len(chosen) < min(count, len(vectors)):
        redundancy = (vectors @ vectors[chosen].T).max(axis=1) if chosen else np.zeros(len(vectors), dtype=np.float32)
        score = (1 - diversity) * centrality - diversity * redundancy
        score[chosen] = -np.inf
        chosen.append(int(np.argmax(score)))
    return chosen


class RuleBasedSummariser:
    name = "rule-based-summariser"

    def summarise(self, memories: list[Memory], vectors: npt.NDArray[np.float32]) -> list[str]:
        """3 to 5 facts for a cluster; one more for every 25 memories past the first 50."""
        count = max(3, min(5, 3 + (len(memories) - 50) // 25))
        dates = sorted(m.created_at for m in memories)
        span = f"{dates[0].date().isoformat()} to {dates[-1].date().isoformat()}"
        out = []
        for index in representatives(vectors, count):
            text = memories[index].content.rstrip(".")
            out.append(f"Recurring ({len(memories)} related events, {span}), for example: {text}.")
        return out
