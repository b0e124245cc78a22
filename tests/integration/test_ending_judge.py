"""The learned judge of endings (domain/extraction/ending.py): its labelled pairs, its shipped weights, and what the
extraction job does with its verdicts (the local home). The service's tests give the job a judge whose verdicts
are known (a FactEndings port that reads a fixed phrase), so that what is tested is the write path, not the model."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np
import pytest

from mnemo.adapters.local.onnx_pair_judge import OnnxPairJudge
from mnemo.bootstrap import ENDING_PATH, Mnemo, build_local, run_due_jobs, shared_token_encoder
from mnemo.clock import ManualClock
from mnemo.domain.extraction.ending import EndingJudge, EndingModel, read_statement
from mnemo.domain.extraction.slots import RETRACTION_TAG
from mnemo.domain.models import Category, Scope, SourceKind, Status
from mnemo.errors import ConfigurationError
from mnemo.ports import ExtractionJob
from mnemo.services.ingest import IncomingMessage
from mnemo.services.user_control import MemoryEdit
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from mnemo.training import ending as training
from tests.integration.conversation_steps import say_next_day

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests" / "eval" / "data" / "frozen" / "ending_check.txt"
TENANT, USER = "t-ending", "u-ending"
START = datetime(2026, 3, 1, 9, tzinfo=UTC)


def test_unrelated_messages_are_paired_with_each_fact_as_holding() -> None:
    pairs = training.load(training.training_files())[:50]
    more = training.with_unrelated(pairs, 2, seed=3)
    assert more[:50] == pairs
    added = more[50:]
    assert len(added) >= 90
    for pair in added:
        assert not pair.ends
        slot = read_statement(pair.fact)[2]
        assert any(read_statement(p.fact)[2] != slot for p in pairs if p.message == pair.message)


def test_every_pair_parses_and_names_a_fact_form_and_no_check_pair_is_trained_on() -> None:
    train = training.load(training.training_files())
    check = training.load([CHECK])
    assert len(train) >= 1200
    assert len(check) >= 300
    for pair in [*train, *check]:
        start, end, slot = read_statement(pair.fact)
        assert slot, pair.fact
        assert end > start, pair.fact
    assert not {(p.fact, p.message) for p in check} & {(p.fact, p.message) for p in train}
    assert not {p.message for p in check} & {p.message for p in train}


def test_the_value_is_read_from_every_form() -> None:
    cases = {"User's health: warfarin.": ("warfarin", "health"),
             "User's project uses Go and chi.": ("Go and chi", "project_stack"),
             "User plans: trip to Rome (for 2026-07-10).": ("trip to Rome (for 2026-07-10)", "plan"),
             "User is originally from Lima.": ("Lima", "hometown"),
             "User is 34 years old.": ("34", "age")}
    for statement, (value, slot) in cases.items():
        start, end, form = read_statement(statement)
        assert (statement[start:end], form) == (value, slot)


def test_the_shipped_model_is_what_the_committed_pairs_train(tmp_path: Path) -> None:
    out = tmp_path / "ending.npz"
    assert training.main(["--out", str(out)]) == 0
    trained, shipped = EndingModel.load(out), EndingModel.load(ENDING_PATH)
    assert trained.version == shipped.version
    # judged by what the two say, not by their weights: the encoder's floats differ in their last bits from one
    # CPU to another (another machine's retraining moved output weights by ~0.004), and so do the weights fitted
    from mnemo.adapters.local.onnx_embedder import OnnxMiniLmEmbedder

    pairs = training.with_unrelated(training.load(training.training_files()), training.UNRELATED, 7)
    rows = training.features(pairs, OnnxMiniLmEmbedder(query_model=training.ENCODER, verify=False))
    now, then = trained.probabilities(rows), shipped.probabilities(rows)
    assert float(np.abs(now - then).mean()) < 0.01  # this machine: 0.0007 (its 99th percentile 0.005)
    assert float(np.mean((now >= 0.5) == (then >= 0.5))) >= 0.99  # this machine: every verdict the same


def test_the_judge_is_off_by_default_and_scores_pairs_when_on(tmp_path: Path) -> None:
    off = build_local(Settings(data_dir=tmp_path / "off"))
    try:
        assert off.ports.endings is None
    finally:
        off.close()
    on = build_local(Settings(data_dir=tmp_path / "on", ending_enabled=True, ending_cross_encoder=False))
    try:
        assert on.ports.endings is not None
        chances = on.ports.endings.probabilities("hello there", ["User's health: warfarin.", "User lives in Leeds."])
        assert len(chances) == 2
        assert all(0.0 <= c <= 1.0 for c in chances)
        assert on.ports.endings.probabilities("", ["User lives in Leeds."]) == [0.0]
    finally:
        on.close()


class PhraseJudge:
    """Says a message ends a fact when the message holds "so long <the fact's value>" (its verdicts are known; the
    learned extractor reads nothing in "so long bouldering", and "RIP bouldering" as the hobby said again)."""

    version = "phrase-judge"

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []

    def owners(self) -> set[tuple[str, str]]:
        return set()

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        pass

    def probabilities(self, message: str, statements: Sequence[str],
                      owner: tuple[str, str] | None = None) -> list[float]:
        self.calls.append((message, list(statements)))
        out = []
        for statement in statements:
            start, end, _slot = read_statement(statement)
            out.append(0.99 if f"so long {statement[start:end].lower()}" in message.lower() else 0.01)
        return out


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    built = build_local(Settings(data_dir=tmp_path, extractor="learned"), clock=ManualClock(START))
    built.ports.endings = PhraseJudge()
    yield built
    built.close()


def _said(service: Mnemo, conversation: str, text: str) -> None:
    say_next_day(service, TENANT, USER, conversation, text)


def _store(service: Mnemo, content: str, subject: str, category: Category,
           source: SourceKind = SourceKind.EXTRACTED) -> None:
    service.writer.write(TENANT, USER, [NewFact(content=content, category=category, subject=subject,
                                                confidence=0.95, source=source, occurred_at=START)])


def _by_subject(service: Mnemo, subject: str) -> list[tuple[str, bool, Status, list[str]]]:
    return sorted((m.content, m.polarity, m.status, m.tags)
                  for m in service.ports.memories.all_for_user(TENANT, USER) if m.subject == subject)


def test_a_fact_the_judge_finds_ended_is_retired_and_only_that_one(service: Mnemo) -> None:
    _store(service, "User's hobby: bouldering.", "hobby:boulder", Category.PREFERENCE)
    _store(service, "User's hobby: chess.", "hobby:chess", Category.PREFERENCE)
    _said(service, "c1", "so long bouldering, my shoulders hate me")
    assert _by_subject(service, "hobby:boulder") == [
        ("User no longer does bouldering.", False, Status.ACTIVE, [RETRACTION_TAG]),
        ("User's hobby: bouldering.", True, Status.SUPERSEDED, [])]
    assert _by_subject(service, "hobby:chess") == [("User's hobby: chess.", True, Status.ACTIVE, [])]
    block = service.retriever.retrieve(TENANT, USER, "what hobbies do I have?", top_k=8, token_budget=500).context
    assert "bouldering" not in block.lower()


def test_the_extractors_own_reading_of_the_value_said_again_stands(service: Mnemo) -> None:
    _store(service, "User's hobby: bouldering.", "hobby:boulder", Category.PREFERENCE)
    _said(service, "c1", "RIP bouldering lol, so long bouldering")  # the judge says ended, the extractor said again
    assert [s[2] for s in _by_subject(service, "hobby:boulder") if s[1]] == [Status.ACTIVE]


def _judged(service: Mnemo, text: str, again: bool = False) -> list[NewFact]:
    """What the extraction job would add for ``text`` said in conversation c1 a day later, judged as the job
    judges it, without writing (``again``: the same buffered message judged once more, as a redelivery would)."""
    clock = service.ports.clock
    assert isinstance(clock, ManualClock)
    if not again:
        clock.set(clock.now() + timedelta(days=1))
        service.ingestor.add_turns(TENANT, USER, "c1", [IncomingMessage(role="user", content=text,
                                                                       created_at=clock.now())])
    turns = service.ports.buffer.pending(TENANT, USER, "c1", 10**9)
    job = ExtractionJob(tenant_id=TENANT, user_id=USER, conversation_id="c1", up_to_seq=turns[-1].seq,
                        due_at=clock.now())
    judge = service.ports.endings
    assert judge is not None
    return service.extraction._with_endings(judge, job, turns, [], None)


def test_a_job_redelivered_after_its_writes_writes_its_ending_once(service: Mnemo) -> None:
    # a copy that crashed after writing and before acknowledging the turns is run again: the same message gives
    # the same retraction id, which the second write finds
    _store(service, "User's hobby: bouldering.", "hobby:boulder", Category.PREFERENCE)
    first = _judged(service, "so long bouldering")
    assert [r.outcome for r in service.writer.write(TENANT, USER, first, each_alone=True)] == ["superseded"]
    again = _judged(service, "so long bouldering", again=True)
    assert again == []  # the fact it ended is no longer live: nothing to judge
    assert [r.outcome for r in service.writer.write(TENANT, USER, first, each_alone=True)] == ["merged"]
    assert _by_subject(service, "hobby:boulder") == [
        ("User no longer does bouldering.", False, Status.ACTIVE, [RETRACTION_TAG]),
        ("User's hobby: bouldering.", True, Status.SUPERSEDED, [])]


def test_the_judge_ends_what_the_user_said_earlier_but_not_what_was_only_inferred_later(service: Mnemo) -> None:
    # R6: between the user's statements the later wins, whoever wrote the earlier one (an app's remember too)
    _store(service, "User's hobby: bouldering.", "hobby:boulder", Category.PREFERENCE, SourceKind.USER_EXPLICIT)
    _said(service, "c1", "so long bouldering")
    assert [s[2] for s in _by_subject(service, "hobby:boulder") if s[1]] == [Status.SUPERSEDED]


def test_a_fact_said_after_the_message_is_not_judged_against_it(service: Mnemo) -> None:
    clock = service.ports.clock
    assert isinstance(clock, ManualClock)
    service.ingestor.add_turns(TENANT, USER, "c1", [IncomingMessage(role="user", content="so long bouldering",
                                                                   created_at=clock.now())])
    late = START + timedelta(days=3)
    service.writer.write(TENANT, USER, [NewFact(content="User's hobby: bouldering.", category=Category.PREFERENCE,
                                                subject="hobby:boulder", confidence=0.95,
                                                source=SourceKind.EXTRACTED, occurred_at=late)])
    clock.set(late + timedelta(days=1))
    service.ingestor.close(TENANT, USER, "c1")
    run_due_jobs(service)
    assert [s[2] for s in _by_subject(service, "hobby:boulder") if s[1]] == [Status.ACTIVE]


def test_the_judge_reads_only_user_messages_and_live_positive_facts(service: Mnemo) -> None:
    judge = service.ports.endings
    assert isinstance(judge, PhraseJudge)
    _store(service, "User's hobby: bouldering.", "hobby:boulder", Category.PREFERENCE)
    service.writer.write(TENANT, USER, [NewFact(content="User no longer does chess.", category=Category.PREFERENCE,
                                                subject="hobby:chess", confidence=0.95, polarity=False,
                                                source=SourceKind.EXTRACTED, occurred_at=START)])
    clock = service.ports.clock
    assert isinstance(clock, ManualClock)
    clock.set(clock.now() + timedelta(days=1))
    service.ingestor.add_turns(TENANT, USER, "c1", [
        IncomingMessage(role="user", content="what should I cook tonight", created_at=clock.now()),
        IncomingMessage(role="assistant", content="So long bouldering!", created_at=clock.now())])
    service.ingestor.close(TENANT, USER, "c1")
    run_due_jobs(service)
    assert [message for message, _facts in judge.calls] == ["what should I cook tonight"]
    assert all("chess" not in s for _m, facts in judge.calls for s in facts)
    assert [s[2] for s in _by_subject(service, "hobby:boulder") if s[1]] == [Status.ACTIVE]


class FixedPair:
    """A second reader whose verdict is known: every pair it reads gets ``chance``."""

    def __init__(self, chance: float) -> None:
        self.chance = chance
        self.read: list[tuple[str, str]] = []

    def probability(self, statement: str, message: str) -> float:
        self.read.append((statement, message))
        return self.chance


def test_the_joint_reader_confirms_only_what_the_first_judge_found_likely() -> None:
    settings = Settings()
    first = EndingJudge(shared_token_encoder(settings), EndingModel.load(ENDING_PATH))
    message = "the cardiologist took me off warfarin and put me on apixaban instead"
    statements = ["User's health: warfarin.", "User lives in Leeds.", "User's hobby: chess."]
    alone = first.probabilities(message, statements)
    doubter = FixedPair(0.01)
    both = EndingJudge(first.encoder, first.model, confirm=doubter, confirm_from=0.5)
    assert both.version == f"{first.version}+cross"
    confirmed = both.probabilities(message, statements)
    assert [s for s, _m in doubter.read] == [s for s, p in zip(statements, alone, strict=True) if p >= 0.5]
    assert confirmed == [min(p, 0.01) if p >= 0.5 else p for p in alone]


def test_the_cross_encoder_adapter_feeds_one_pair_a_run(tmp_path: Path) -> None:
    # a stand-in model with the exported judge's inputs and output: "ends" is the share of the pair's pieces that
    # belong to the message (type 1), so the feeds the adapter builds are checked, not only that it runs
    from onnx import TensorProto, helper, save

    inputs = [helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
              for name in ("input_ids", "attention_mask", "token_type_ids")]
    graph = helper.make_graph(
        [helper.make_node("Cast", ["token_type_ids"], ["types"], to=TensorProto.FLOAT),
         helper.make_node("ReduceMean", ["types"], ["ends"], axes=[1], keepdims=0)],
        "stand_in", inputs, [helper.make_tensor_value_info("ends", TensorProto.FLOAT, ["batch"])])
    path = tmp_path / "cross.onnx"
    save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), str(path))
    judge = OnnxPairJudge(path)
    short, long = judge.probability("User lives in Leeds.", "hi"), judge.probability("hi", "User lives in Leeds.")
    assert 0.0 < short < long < 1.0


def test_a_missing_cross_encoder_is_named_when_the_judge_is_switched_on(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="train-ending-encoder"):
        build_local(Settings(data_dir=tmp_path, ending_enabled=True, ending_cross_path=tmp_path / "none.onnx"))
    built = build_local(Settings(data_dir=tmp_path / "first", ending_enabled=True, ending_cross_encoder=False))
    try:
        assert isinstance(built.ports.endings, EndingJudge)
        assert built.ports.endings.confirm is None
    finally:
        built.close()


def _said_in(service: Mnemo, conversation: str, text: str, project_id: str | None) -> None:
    say_next_day(service, TENANT, USER, conversation, text, project_id)


def _store_in(service: Mnemo, content: str, subject: str, scope: Scope, *, project_id: str | None = None,
              session_id: str | None = None) -> None:
    service.writer.write(TENANT, USER, [NewFact(content=content, category=Category.PREFERENCE, subject=subject,
                                                confidence=0.95, source=SourceKind.EXTRACTED, occurred_at=START,
                                                scope=scope, project_id=project_id, session_id=session_id)])


def _live(service: Mnemo, subject: str) -> list[tuple[Scope, str | None, str | None]]:
    return sorted(((m.scope, m.project_id, m.session_id) for m in service.ports.memories.all_for_user(TENANT, USER)
                   if m.subject == subject and m.polarity and m.status is Status.ACTIVE), key=str)


def test_the_judge_ends_no_fact_of_another_project_or_of_a_session(service: Mnemo) -> None:
    # what a message in one project's conversation says ends nothing in another project, nor in a session the
    # job does not read: the job writes only user facts and its own project's (as the extractor's facts are)
    _store_in(service, "User's hobby: bouldering.", "hobby:boulder", Scope.PROJECT, project_id="p-a")
    _store_in(service, "User's hobby: bouldering.", "hobby:boulder", Scope.SESSION, session_id="s-1")
    _said_in(service, "c1", "so long bouldering", project_id="p-b")
    _said_in(service, "c2", "so long bouldering", project_id=None)
    assert _live(service, "hobby:boulder") == [(Scope.PROJECT, "p-a", None), (Scope.SESSION, None, "s-1")]
    _said_in(service, "c3", "so long bouldering", project_id="p-a")
    assert _live(service, "hobby:boulder") == [(Scope.SESSION, None, "s-1")]


def test_one_message_that_ends_two_facts_of_one_subject_retires_both(service: Mnemo) -> None:
    # a user fact and the project's fact of the same subject, both in view of the project's conversation: each
    # gets its own retraction (one id for both made the second a "merge" into the first, and it stayed live)
    _store_in(service, "User's hobby: bouldering.", "hobby:boulder", Scope.USER)
    _store_in(service, "User's hobby: bouldering.", "hobby:boulder", Scope.PROJECT, project_id="p-a")
    _said_in(service, "c1", "so long bouldering", project_id="p-a")
    assert _live(service, "hobby:boulder") == []
    retractions = [m for m in service.ports.memories.all_for_user(TENANT, USER)
                   if m.subject == "hobby:boulder" and not m.polarity]
    assert sorted(str(m.scope) for m in retractions) == ["project", "user"]


def test_a_fact_the_user_edited_after_it_was_judged_is_not_ended(service: Mnemo) -> None:
    # the job judges without the user's lock and writes under it: a fact edited between the two was not the
    # fact judged, and the user's own edit stands
    _store(service, "User's hobby: bouldering.", "hobby:boulder", Category.PREFERENCE)
    facts = _judged(service, "so long bouldering")
    assert [f.ends for f in facts]
    (old,) = [m for m in service.ports.memories.all_for_user(TENANT, USER) if m.subject == "hobby:boulder"]
    service.control.edit(TENANT, USER, old.memory_id, MemoryEdit(content="User's hobby: chess."))
    results = service.writer.write(TENANT, USER, facts, actor="extraction", each_alone=True)
    assert [r.outcome for r in results] == ["rejected"]
    assert [s[2] for s in _by_subject(service, "hobby:boulder") if s[1]] == [Status.ACTIVE]


def test_the_judge_keeps_each_users_facts_apart_by_digest_and_an_erase_empties_it(tmp_path: Path) -> None:
    """The judge's cache of facts' readings held statements in the clear, keyed by the statement alone: no erase
    could reach it (round 5's leftover). It is now per tenant and user, by digest, one of the user caches."""
    from tests.conftest import ApiClient

    service = build_local(Settings(data_dir=tmp_path, ending_enabled=True, ending_cross_encoder=False),
                          clock=ManualClock(START))
    try:
        judge = service.ports.endings
        assert isinstance(judge, EndingJudge)
        assert judge in service.caches.caches
        api = ApiClient(service)
        for user in ("erased", "kept"):
            assert api.call("POST", f"/v1/users/{user}/memories", {"content": "I live in Lisbon."})[0] == 201
            say_next_day(service, "tenant_a", user, f"c-{user}", "We finally moved to Porto last week!")
        assert judge.owners() >= {("tenant_a", "erased"), ("tenant_a", "kept")}
        assert all(len(key) == 3 and isinstance(key[2], bytes) and len(key[2]) == 32 for key in judge._cache)
        assert api.call("DELETE", "/v1/users/erased")[0] in (202, 204)
        assert ("tenant_a", "erased") not in judge.owners()
        assert ("tenant_a", "kept") in judge.owners()
    finally:
        service.close()
