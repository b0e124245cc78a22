"""The extractor's precision and recall on the labelled sets stay at their measured level
(tests/eval/extraction_quality.py prints them per file and per category)."""

from __future__ import annotations

from tests.eval.extraction_quality import HERE, evaluate, load, load_all


def test_precision_and_recall_on_all_labelled_messages_per_category() -> None:
    report = evaluate(load_all())
    assert report["messages"] >= 500
    assert report["all"]["precision"] >= 0.98, report["errors"]
    assert report["all"]["recall"] >= 0.95, report["errors"]
    for category, figures in report["by_category"].items():
        assert figures["precision"] >= 0.95, (category, figures)
        assert figures["recall"] >= 0.90, (category, figures)


def test_the_held_out_phrasings_stay_above_the_targets() -> None:
    for name in ("extraction_varied_test.txt", "extraction_varied_test2.txt"):
        report = evaluate(load(HERE / "data" / name))
        assert report["messages"] >= 100
        assert report["all"]["precision"] >= 0.95, (name, report["errors"])
        assert report["all"]["recall"] >= 0.80, (name, report["errors"])
