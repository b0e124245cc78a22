"""Offline tuning (SPEC R7, channel C): learn the re-rank weights a, b, c from feedback.

For every rated retrieval still traced, the injected memories of a thumbs up are good examples
and those of a thumbs down, a correction or a miss are bad ones. A component (relevance,
recency, confidence) whose value separates good from bad gets more weight: each weight moves
by ``rate * (mean over good - mean over bad)``, is clamped to its bounds, and the three are
renormalised to their previous sum. Nothing changes without ``tuning_min_samples`` examples.
Each result is a new version; retrieve uses the newest and its trace records which.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from mnemo.domain.models import TunedWeights
from mnemo.services.context import Ports

GOOD = {"up"}
BAD = {"down", "correction", "miss"}
COMPONENTS = {"a": "relevance", "b": "recency", "c": "confidence"}


@dataclass
class TuningReport:
    tenant_id: str
    samples: int
    changed: bool
    version: int
    weights: dict[str, float]
    categories: dict[str, dict[str, float]] = field(default_factory=dict)

    def worst_categories(self) -> list[str]:
        """Categories ordered by how often their memories led to corrections or misses."""
        return sorted(self.categories, key=lambda c: -self.categories[c].get("bad_rate", 0.0))


class Tuner:
    def __init__(self, ports: Ports) -> None:
        self.p = ports

    def current(self, tenant_id: str) -> TunedWeights:
        tuned = self.p.weights.current(tenant_id)
        if tuned is not None:
            return tuned
        w = self.p.settings.weights
        return TunedWeights(tenant_id=tenant_id, version=0, a=w.a, b=w.b, c=w.c,
                            created_at=datetime.fromtimestamp(0, tz=self.p.clock.now().tzinfo))

    def run(self, tenant_id: str) -> TuningReport:
        now = self.p.clock.now()
        before = self.current(tenant_id)
        # only feedback that came after the version in force (the one it was given under)
        start = before.created_at + timedelta(microseconds=1) if before.version else \
            datetime.fromtimestamp(0, tz=now.tzinfo)
        records = self.p.feedback.since(tenant_id, start)
        sums: dict[str, dict[str, float]] = {"good": defaultdict(float), "bad": defaultdict(float)}
        counts = {"good": 0, "bad": 0}
        per_category: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        for record in records:
            kind = "good" if record.rating in GOOD else "bad" if record.rating in BAD else None
            if kind is None:
                continue
            for category in record.categories.values():
                per_category[category][record.rating] += 1
                per_category[category]["total"] += 1
            trace = self.p.traces.get(tenant_id, record.trace_id, now)
            if trace is None:
                continue
            for candidate in trace.candidates:
                if not candidate.selected:
                    continue
                sums[kind]["a"] += candidate.relevance
                sums[kind]["b"] += candidate.recency
                sums[kind]["c"] += candidate.confidence
                counts[kind] += 1
        for stats in per_category.values():
            bad = sum(stats.get(r, 0.0) for r in BAD)
            stats["bad_rate"] = round(bad / stats["total"], 3) if stats["total"] else 0.0
        samples = counts["good"] + counts["bad"]
        weights = {"a": before.a, "b": before.b, "c": before.c}
        changed = False
        if samples >= self.p.settings.tuning_min_samples and counts["good"] and counts["bad"]:
            total = sum(weights.values())
            bounds = self.p.settings.tuning_bounds
            for key, value in list(weights.items()):
                gap = sums["good"][key] / counts["good"] - sums["bad"][key] / counts["bad"]
                weights[key] = min(bounds[key][1], max(bounds[key][0], value + self.p.settings.tuning_rate * gap))
            scale = total / sum(weights.values())
            # renormalised, then held inside the bounds again (the sum may then differ a little)
            weights = {k: round(min(bounds[k][1], max(bounds[k][0], v * scale)), 4) for k, v in weights.items()}
            changed = weights != {"a": before.a, "b": before.b, "c": before.c}
        version = before.version
        if changed:
            version += 1
            self.p.weights.put(TunedWeights(tenant_id=tenant_id, version=version, created_at=now, samples=samples,
                                            report={k: dict(v) for k, v in per_category.items()}, **weights))
        return TuningReport(tenant_id=tenant_id, samples=samples, changed=changed, version=version,
                            weights=weights, categories={k: dict(v) for k, v in per_category.items()})
