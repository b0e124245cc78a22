"""The extractor's precision and recall on the labelled sets stay at their measured level."""

from __future__ import annotations

from tests.eval.extraction_quality import evaluate, load_all


def test_precision_and_recall_on_the_labelled_messages() -> None:
    report = evaluate(load_all())
    assert report["messages"] >= 200
    assert report["all"]["precision"] >= 0.97, report["errors"]
    assert report["all"]["recall"] >= 0.95, report["errors"]
