"""The training's messages read inside a run of others (mnemo.training.extractor.in_context)."""

from __future__ import annotations

from mnemo.training.extractor import Example, in_context

MESSAGES = [
    Example("im allergic to soy", [(15, 18, "allergy", False)]),
    Example("we moved to Leeds last spring", [(12, 17, "home_location", False)]),
    Example("not vegan anymore lol", [(4, 9, "diet", True)]),
    Example("what should I cook tonight?", []),
]


def test_each_value_keeps_its_words_slot_and_polarity_inside_the_run() -> None:
    runs = in_context(MESSAGES, seed=7)
    assert len(runs) == len(MESSAGES)
    labelled = {(m.text[s:e], slot, neg) for m in MESSAGES for s, e, slot, neg in m.spans}
    for run, own in zip(runs, MESSAGES, strict=True):
        assert own.text in run.text  # the message itself, among one or two others
        assert len(run.text) > len(own.text)
        found = {(run.text[s:e], slot, neg) for s, e, slot, neg in run.spans}
        assert found <= labelled
        assert {(own.text[s:e], slot, neg) for s, e, slot, neg in own.spans} <= found


def test_a_share_of_none_adds_nothing_and_a_seed_gives_the_same_runs() -> None:
    assert in_context(MESSAGES, seed=7, share=0.0) == []
    assert in_context(MESSAGES, seed=7) == in_context(MESSAGES, seed=7)
