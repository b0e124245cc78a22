"""Turns -> buffer -> debounce -> extraction -> memories, on the embedded back ends, with a manual clock."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from mnemo.bootstrap import Mnemo, run_due_jobs
from mnemo.domain.extraction import Candidate, Extraction
from mnemo.domain.models import Category, SourceKind, Status, UserSettings
from mnemo.services.ingest import IncomingMessage


def say(service: Mnemo, text: str, conversation: str = "c1", message_id: str | None = None,
        user: str = "u") -> None:
    service.ingestor.add_turns("t", user, conversation, [IncomingMessage("user", text, message_id)])


def contents(service: Mnemo, user: str = "u") -> list[str]:
    return sorted(m.content for m in service.ports.memories.all_for_user("t", user) if m.status is Status.ACTIVE)


def test_nothing_is_extracted_on_the_request_path(service: Mnemo) -> None:
    say(service, "I live in Lisbon.")
    assert contents(service) == []


def test_quiet_period_triggers_extraction(service: Mnemo, clock) -> None:
    say(service, "I live in Lisbon.")
    clock.advance(seconds=29)
    assert run_due_jobs(service) == 0
    clock.advance(seconds=2)
    assert run_due_jobs(service) == 1
    assert contents(service) == ["User lives in Lisbon."]


def test_a_new_turn_pushes_the_quiet_period_back(service: Mnemo, clock) -> None:
    say(service, "I live in Lisbon.", message_id="a")
    clock.advance(seconds=20)
    say(service, "I have a dog named Rex.", message_id="b")
    clock.advance(seconds=15)
    assert run_due_jobs(service) == 0  # 35 s after the first turn, only 15 s after the last
    clock.advance(seconds=16)
    assert run_due_jobs(service) == 1
    assert contents(service) == ["User has a pet: dog named Rex.", "User lives in Lisbon."]


def test_five_turns_trigger_extraction_at_once(service: Mnemo) -> None:
    for i, text in enumerate(["I live in Lisbon.", "I love jazz.", "I have a cat named Tom.",
                              "I'm vegetarian.", "I work as a nurse."]):
        say(service, text, message_id=f"m{i}")
    assert run_due_jobs(service) == 1
    assert len(contents(service)) == 5


def test_close_extracts_now_and_twice_is_harmless(service: Mnemo) -> None:
    say(service, "I live in Lisbon.")
    service.ingestor.close("t", "u", "c1")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    run_due_jobs(service)
    assert contents(service) == ["User lives in Lisbon."]


def test_duplicate_delivery_of_the_same_turns_creates_nothing_new(service: Mnemo) -> None:
    say(service, "I live in Lisbon.", message_id="x1")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    say(service, "I live in Lisbon.", message_id="x1")  # the app retried the same message
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert len(list(service.ports.memories.all_for_user("t", "u"))) == 1


def test_stale_job_is_dropped_and_the_newer_one_covers_everything(service: Mnemo, clock) -> None:
    say(service, "I live in Lisbon.", message_id="a")
    stale = service.ports.queue.due(clock.now() + __import__("datetime").timedelta(seconds=31), 10)[0]
    say(service, "I have a dog named Rex.", message_id="b")
    report = service.extraction.process(stale)
    assert report.stale
    assert contents(service) == []
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert len(contents(service)) == 2


def test_the_secret_is_written_nowhere(service: Mnemo, settings) -> None:
    say(service, "My card number is 4111 1111 1111 1111 and I live in Porto.")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert contents(service) == ["User lives in Porto."]
    data_dir: Path = settings.data_dir
    for path in data_dir.glob("mnemo.db*"):
        raw = path.read_bytes()
        assert b"4111" not in raw
        assert b"Porto" not in raw


def test_memory_off_means_nothing_is_kept(service: Mnemo) -> None:
    service.ports.user_settings.put("t", "u", UserSettings(memory_enabled=False))
    say(service, "I live in Lisbon.")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert contents(service) == []


def test_forget_in_a_turn_removes_the_fact_and_it_is_not_relearned(service: Mnemo) -> None:
    say(service, "I love jazz music.", message_id="a")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert contents(service) == ["User likes jazz music."]
    say(service, "Please forget that I love jazz music.", conversation="c2", message_id="b")
    service.ingestor.close("t", "u", "c2")
    run_due_jobs(service)
    assert contents(service) == []
    # the app replays the old conversation: the tombstone keeps the fact forgotten
    say(service, "I love jazz music.", conversation="c1", message_id="a")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert contents(service) == []


def test_a_fact_forgotten_then_told_again_is_learned_again(service: Mnemo) -> None:
    say(service, "I love jazz music.", message_id="a")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert service.forgetter.forget("t", "u", "jazz music")
    assert contents(service) == []
    say(service, "I love jazz music.", conversation="c2", message_id="b")
    service.ingestor.close("t", "u", "c2")
    run_due_jobs(service)
    assert contents(service) == ["User likes jazz music."]


class TurnDuring:
    """A real port (the extractor or the embedder) whose ``method``, the first time it is called, sends the
    user's next turn from another thread (as a request in another worker would) and records whether that
    request could finish meanwhile."""

    def __init__(self, service: Mnemo, real: Any, method: str) -> None:
        self.service, self.real, self.method, self.finished = service, real, method, False
        self.request: threading.Thread | None = None

    def __getattr__(self, name: str) -> Any:
        if name != self.method:
            return getattr(self.real, name)
        return self._during

    def _during(self, *args: Any) -> Any:
        if self.request is None:
            self.request = threading.Thread(target=say, args=(self.service, "I love jazz.", "c1", "late"))
            self.request.start()
            self.request.join(timeout=5)  # with the user's lock held meanwhile, it waits for this call
            self.finished = not self.request.is_alive()
        return getattr(self.real, self.method)(*args)


def test_the_users_requests_do_not_wait_for_the_extractor(service: Mnemo, clock) -> None:
    say(service, "I live in Lisbon.", message_id="a")
    extractor = TurnDuring(service, service.ports.extractor, "extract")
    service.ports.extractor = extractor  # type: ignore[assignment]
    clock.advance(seconds=31)
    run_due_jobs(service)
    assert extractor.request is not None
    extractor.request.join()
    assert extractor.finished
    assert contents(service) == ["User lives in Lisbon."]
    clock.advance(seconds=31)
    run_due_jobs(service)  # the turn that came during the extraction has its own job
    assert contents(service) == ["User likes jazz.", "User lives in Lisbon."]


def test_the_users_requests_do_not_wait_for_the_facts_embedding(service: Mnemo, clock) -> None:
    say(service, "I live in Lisbon.", message_id="a")
    embedder = TurnDuring(service, service.ports.embedder, "embed")
    service.ports.embedder = embedder  # type: ignore[assignment]
    clock.advance(seconds=31)
    run_due_jobs(service)
    assert embedder.request is not None
    embedder.request.join()
    assert embedder.finished
    assert contents(service) == ["User lives in Lisbon."]
    stored = service.ports.profiles.get("t", "u")  # the job rebuilt the profile its write made stale
    assert stored.profile is not None
    assert stored.is_current(clock.now())
    assert stored.profile.location is not None
    assert "Lisbon" in stored.profile.location
    clock.advance(seconds=31)
    run_due_jobs(service)
    assert contents(service) == ["User likes jazz.", "User lives in Lisbon."]


class WriteDuringResolution:
    """The memory store, with another user's write sent from another thread each time a fact of user
    "u" is resolved against the stored ones (as a request in another worker would); records whether
    every such write could finish meanwhile, i.e. whether the resolution held the write lock."""

    def __init__(self, service: Mnemo) -> None:
        self.service, self.real = service, service.ports.memories
        self.requests: list[threading.Thread] = []
        self.finished: list[bool] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def by_fingerprint(self, tenant_id: str, user_id: str, content: str) -> Any:
        if user_id == "u":
            other = threading.Thread(target=say, args=(self.service, f"I like tea {len(self.requests)}.", "c9",
                                                       f"o{len(self.requests)}", "other"))
            self.requests.append(other)
            other.start()
            other.join(timeout=5)
            self.finished.append(not other.is_alive())
        return self.real.by_fingerprint(tenant_id, user_id, content)


def test_an_extraction_holds_the_write_lock_only_for_each_facts_rows(service: Mnemo, clock) -> None:
    say(service, "I live in Lisbon.", message_id="a")
    say(service, "I work as a nurse.", message_id="b")
    store = WriteDuringResolution(service)
    service.ports.memories = store  # type: ignore[assignment]
    clock.advance(seconds=31)
    run_due_jobs(service)
    for request in store.requests:
        request.join()
    assert len(store.finished) == 2
    assert all(store.finished)  # neither fact's resolution kept the other user's turns waiting
    assert len(contents(service)) == 2


def test_a_value_that_ends_and_its_replacement_in_one_message_are_both_written(service: Mnemo) -> None:
    # both are the job: the retraction and the new job had one stable id, so the second was taken for a
    # redelivery of the first and never written
    say(service, "I work at Chipotle.", message_id="a")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    say(service, "ugh i quit chipotle, my manager was so mid. im at target now doing stocking", conversation="c2",
        message_id="b")
    service.ingestor.close("t", "u", "c2")
    run_due_jobs(service)
    jobs = [m for m in service.ports.memories.all_for_user("t", "u") if m.subject == "job"]
    assert len({m.memory_id for m in jobs}) == 3
    # the retraction stays beside it, listed and never injected
    assert sorted(m.content for m in jobs if m.status is Status.ACTIVE) == [
        "User no longer works as/at chipotle.", "User's job: target."]


class Stated:
    """An extractor that finds, in each message, the facts a test lists for it (content, polarity, source)."""

    name, version = "stated", "1"

    def __init__(self, facts: dict[str, list[tuple[str, bool, SourceKind]]]) -> None:
        self.facts = facts

    def extract(self, messages: Any) -> Extraction:
        return Extraction([Candidate(Category.CONSTRAINT, "diet", content, 0.9, content, m.message_id,
                                     m.created_at, polarity=polarity, source=source, tags=["diet"])
                           for m in messages for content, polarity, source in self.facts.get(m.message_id, [])])


def test_what_ended_is_written_before_what_holds_now(service: Mnemo) -> None:
    # the new diet, found before the old one's end in the message, lost to the stored keto (said as a change,
    # so explicit) and was kept superseded; the retraction then retired keto, and no diet was left
    service.ports.extractor = Stated({  # type: ignore[assignment]
        "a": [("User's diet: keto.", True, SourceKind.USER_EXPLICIT)],
        "b": [("User's diet: lower carb.", True, SourceKind.EXTRACTED),
              ("User no longer follows this diet: keto.", False, SourceKind.USER_EXPLICIT)]})
    say(service, "I've started doing keto", message_id="a")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    say(service, "the doc says lower carb is enough, so I quit the keto thing", conversation="c2", message_id="b")
    service.ingestor.close("t", "u", "c2")
    run_due_jobs(service)
    assert contents(service) == ["User no longer follows this diet: keto.", "User's diet: lower carb."]


def test_a_value_switched_from_is_retired_by_the_one_switched_to(service: Mnemo, clock) -> None:
    say(service, "I'm on a Mac", message_id="a")
    say(service, "I use neovim for everything", message_id="b")
    service.ingestor.close("t", "u", "c1")
    run_due_jobs(service)
    assert {"User uses Mac.", "User uses neovim for everything."} <= set(contents(service))
    clock.advance(days=20)
    say(service, "I switched from neovim to Helix last week", conversation="c2", message_id="c")
    say(service, "also switched from Mac to a Linux laptop", conversation="c2", message_id="d")
    service.ingestor.close("t", "u", "c2")
    run_due_jobs(service)
    now = contents(service)
    assert "User uses Helix." in now
    assert "User uses Linux laptop." in now
    # what was switched from no longer holds (listed as a retraction, never as a fact)
    assert not any(("Mac" in c or "neovim" in c) and "no longer" not in c for c in now), now


def session(service: Mnemo, conversation: str, *said: tuple[str, str]) -> None:
    """The user says each (message id, text) in one conversation, which then closes and is extracted."""
    for message_id, text in said:
        say(service, text, conversation=conversation, message_id=message_id)
    service.ingestor.close("t", "u", conversation)
    run_due_jobs(service)


def health(service: Mnemo, user: str = "u") -> list[str]:
    """The user's health facts that hold now (retractions aside: they are listed, never injected)."""
    return sorted(c for c in contents(service, user) if c.startswith("User's health:"))


def test_a_medicine_switched_from_ends_and_the_one_switched_to_is_kept(service: Mnemo, clock) -> None:
    session(service, "c1", ("a", "fyi my gp put me on ramipril for the blood pressure"))
    assert "User's health: ramipril." in health(service)
    clock.advance(days=20)
    session(service, "c2", ("b", "the gp moved me off ramipril and onto candesartan, the cough was driving me mad"))
    now = health(service)
    assert "User's health: candesartan." in now
    assert not any("ramipril" in c for c in now), now


def test_a_medicine_said_to_replace_an_unnamed_one_ends_the_users_only_medicine(service: Mnemo, clock) -> None:
    session(service, "c1", ("a", "i take atenolol 50mg every morning"))
    clock.advance(days=20)
    session(service, "c2", ("b", "doc put me on bisoprolol now insted, the old pills made my hands freezing"))
    now = health(service)
    assert any("bisoprolol" in c for c in now), now
    assert not any("atenolol" in c for c in now), now


def test_a_new_medicine_adds_and_ends_nothing_unless_it_says_which_it_replaces(service: Mnemo, clock) -> None:
    session(service, "c1", ("a", "I take metformin for my diabetes and my GP has me on ramipril for my blood pressure"))
    assert {"User's health: metformin.", "User's health: ramipril."} <= set(health(service))
    clock.advance(days=10)
    # started, replacing nothing: both stay; a replacement that says neither which one nor what for: nothing
    # ends on a guess
    session(service, "c2",
            ("b", "the nurse started me on atorvastatin as well"),
            ("c", "oh and they changed my tablets, I'm on Entresto now"))
    assert {"User's health: metformin.", "User's health: ramipril.", "User's health: atorvastatin.",
            "User's health: Entresto."} <= set(health(service))
    clock.advance(days=10)
    # a replacement for the blood pressure ends the blood pressure medicine only
    session(service, "c3", ("d", "the cardiologist put me on amlodipine for my blood pressure instead"))
    now = health(service)
    assert "User's health: amlodipine." in now
    assert "User's health: metformin." in now
    assert not any("ramipril" in c for c in now), now


def test_a_new_medicine_of_the_same_kind_taken_now_ends_the_old_one(service: Mnemo, clock) -> None:
    session(service, "c1", ("a", "I take metformin for my diabetes. Blood pressure medicine: ramipril 5 mg, mornings."))
    clock.advance(days=20)
    # the new name alone, said as the one taken now: the blood pressure medicine it replaces ends, metformin stays
    session(service, "c2", ("b", "Since Monday I take candesartan 8 mg in the morning. The dry cough is already less."))
    now = health(service)
    assert "User's health: candesartan 8 mg." in now
    assert "User's health: metformin." in now
    assert not any("ramipril" in c for c in now), now
    clock.advance(days=20)
    # one added beside it ends nothing
    session(service, "c3", ("c", "the doctor added amlodipine as well"))
    assert any("candesartan" in c for c in health(service))


def test_a_new_medicine_of_a_kind_taken_one_at_a_time_ends_the_old_one_now_said_or_not(service: Mnemo,
                                                                                         clock) -> None:
    session(service, "c1", ("a", "I AM ON WARFARIN FOR THE HEART, THE ATRIAL FIB, SO NO CRANBERRY JUICE."))
    clock.advance(days=20)
    session(service, "c2", ("b", "THESE APIXABAN TABLETS ARE WEE THINGS, EASIER TO SWALLOW."))
    now = health(service)
    assert any("apixaban" in c.lower() for c in now), now
    assert not any("warfarin" in c.lower() for c in now), now
    clock.advance(days=20)
    # an antidepressant is at times taken beside another: started, it ends none
    session(service, "c3", ("c", "I take sertraline 50mg every morning"))
    clock.advance(days=20)
    session(service, "c4", ("d", "started mirtazapine at night for sleep"))
    assert any("sertraline" in c for c in health(service))


def test_a_new_medicine_of_another_kind_or_beside_two_of_its_kind_ends_nothing(service: Mnemo, clock) -> None:
    session(service, "c1", ("a", "I take ramipril 10 mg and amlodipine 5 mg for my blood pressure."))
    clock.advance(days=20)
    session(service, "c2", ("b", "Since Monday I take bisoprolol 2.5 mg in the morning for the palpitations."))
    now = health(service)
    assert any("ramipril" in c for c in now), now
    assert any("amlodipine" in c for c in now), now


def test_a_medicine_named_then_said_stopped_by_the_doctor_ends(service: Mnemo, clock) -> None:
    session(service, "c1", ("a", "I have diabetes type 2 so I take metformin with breakfast"))
    clock.advance(days=20)
    session(service, "c2", ("b", "the metformin the doctor stopped because of stomach problems now only Jardiance"))
    assert not any("metformin" in c for c in health(service))


def test_a_new_dose_replaces_the_old_dose_and_a_relatives_medicine_is_not_the_users(service: Mnemo,
                                                                                        clock) -> None:
    session(service, "c1",
            ("a", "been on sertraline 50mg since the spring"),
            ("b", "my husband takes warfarin, he has afib"))
    assert health(service) == ["User's health: sertraline 50mg."]
    clock.advance(days=30)
    session(service, "c2", ("c", "the psychiatrist raised my sertraline to 100mg"))
    assert health(service) == ["User's health: sertraline 100mg."]


def in_conversation(service: Mnemo, conversation: str, *said: tuple[str, str]) -> None:
    """(message id, text) turns said in a conversation that is then closed and extracted."""
    for message_id, text in said:
        say(service, text, conversation=conversation, message_id=message_id)
    service.ingestor.close("t", "u", conversation)
    run_due_jobs(service)


def test_a_planned_move_is_the_home_once_its_date_has_come(service: Mnemo, clock) -> None:
    # 1 January: the user lives in Dubai and plans to move to Toronto in April
    in_conversation(service, "c1", ("a", "I live in Dubai, I'm a nurse."))
    in_conversation(service, "c2", ("b", "omg i got the offer!! moving to Toronto in april"))
    assert "User lives in Dubai." in contents(service)  # not yet: a plan is no move
    # in April, a later conversation that never names the city again
    clock.advance(days=100)
    in_conversation(service, "c3", ("c", "first week at the new hospital done, its freezing here"))
    assert [c for c in contents(service) if c.startswith("User lives in")] == ["User lives in Toronto."]
    # a later job writes it no second time
    in_conversation(service, "c4", ("d", "ok going to sleep"))
    lives = [m for m in service.ports.memories.all_for_user("t", "u") if m.content == "User lives in Toronto."]
    assert len(lives) == 1


def test_a_home_named_after_the_plan_stands(service: Mnemo, clock) -> None:
    in_conversation(service, "c1", ("a", "moving to Toronto in april"))
    clock.advance(days=60)
    in_conversation(service, "c2", ("b", "change of plans, we ended up in Ottawa"), ("b2", "I live in Ottawa now."))
    clock.advance(days=60)
    in_conversation(service, "c3", ("c", "nice weather today"))
    assert [c for c in contents(service) if c.startswith("User lives in")] == ["User lives in Ottawa."]


def test_a_planned_move_said_again_for_a_later_date_waits_for_it(service: Mnemo, clock) -> None:
    in_conversation(service, "c1", ("a", "I live in Dubai."), ("a2", "moving to Toronto in april"))
    clock.advance(days=70)  # 12 March
    in_conversation(service, "c2", ("b", "the visa is late, so now we're moving to Toronto in june"))
    clock.advance(days=30)  # April: the first plan's date, not the second's
    in_conversation(service, "c3", ("c", "nice weather today"))
    assert [c for c in contents(service) if c.startswith("User lives in")] == ["User lives in Dubai."]


def test_a_move_planned_in_the_conversation_that_named_the_home_still_comes_due(service: Mnemo, clock) -> None:
    # a later value of the home in the conversation that named the first is taken for an aside: the move is not
    in_conversation(service, "c1", ("a", "I live in Dubai."), ("a2", "moving to Toronto in april"))
    clock.advance(days=100)
    in_conversation(service, "c2", ("b", "first week done, its freezing here"))
    assert [c for c in contents(service) if c.startswith("User lives in")] == ["User lives in Toronto."]
