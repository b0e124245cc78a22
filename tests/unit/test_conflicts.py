from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.conflicts import Existing, Relation, classify
from mnemo.domain.extraction.slots import lift_and_rest, only_lifts
from mnemo.domain.models import Category, Memory, Provenance, Scope, SourceKind

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def fact(mid: str, subject: str, content: str, *, polarity: bool = True, days: int = 0,
         source: SourceKind = SourceKind.EXTRACTED, scope: Scope = Scope.USER, project: str | None = None) -> Memory:
    when = T0 + timedelta(days=days)
    return Memory(memory_id=mid, tenant_id="t", user_id="u", category=Category.PREFERENCE, subject=subject,
                  content=content, polarity=polarity, confidence=0.9, created_at=when, updated_at=when,
                  last_confirmed_at=when, provenance=Provenance(source=source), scope=scope, project_id=project)


def decide(new: Memory, *existing: tuple[Memory, float]) -> Relation:
    return classify(new, [Existing(m, c) for m, c in existing], conflict_similarity=0.85,
                    duplicate_similarity=0.95).relation


def test_restatement_is_the_same_fact() -> None:
    old = fact("a", "likes:tea", "User likes tea.")
    assert decide(fact("b", "likes:tea", "User likes tea!", days=3), (old, 0.99)) is Relation.SAME


def test_other_value_in_the_same_slot_contradicts() -> None:
    old = fact("a", "location", "User lives in Lisbon.")
    result = classify(fact("b", "location", "User lives in Berlin.", days=5), [Existing(old, 0.7)],
                      conflict_similarity=0.85, duplicate_similarity=0.95)
    assert result.relation is Relation.CONTRADICTS
    assert result.new_wins


def test_flipped_polarity_contradicts_even_when_very_similar() -> None:
    old = fact("a", "likes:sushi", "User likes sushi.")
    new = fact("b", "likes:sushi", "User doesn't like sushi.", polarity=False, days=1)
    assert decide(new, (old, 0.97)) is Relation.CONTRADICTS


def test_an_older_statement_does_not_win() -> None:
    old = fact("a", "location", "User lives in Berlin.", days=10)
    result = classify(fact("b", "location", "User lives in Lisbon.", days=1), [Existing(old, 0.7)],
                      conflict_similarity=0.85, duplicate_similarity=0.95)
    assert result.relation is Relation.CONTRADICTS
    assert not result.new_wins


def test_a_summary_never_overrides_what_the_user_said() -> None:
    old = fact("a", "diet", "User is vegan.", source=SourceKind.USER_EXPLICIT)
    result = classify(fact("b", "diet", "User eats fish.", days=30, source=SourceKind.SUMMARY),
                      [Existing(old, 0.6)], conflict_similarity=0.85, duplicate_similarity=0.95)
    assert not result.new_wins


def test_project_fact_does_not_touch_the_profile_fact() -> None:
    old = fact("a", "prefers:programming_language", "User prefers Python.")
    new = fact("b", "prefers:programming_language", "User prefers Go.", scope=Scope.PROJECT, project="p1")
    assert decide(new, (old, 0.8)) is Relation.INDEPENDENT


def test_very_similar_fact_in_another_slot_is_ambiguous() -> None:
    old = fact("a", "note:x", "User's team ships on Fridays.")
    assert decide(fact("b", "note:y", "User's team deploys every Friday."), (old, 0.9)) is Relation.AMBIGUOUS


def test_unrelated_fact_is_independent() -> None:
    old = fact("a", "likes:tea", "User likes tea.")
    assert decide(fact("b", "pet:rex", "User has a dog."), (old, 0.2)) is Relation.INDEPENDENT


def instruction(mid: str, content: str, days: int) -> Memory:
    return fact(mid, f"instruction:{mid}", content, days=days).model_copy(update={"category": Category.PROCEDURAL})


def resolve(new: Memory, old: Memory, cosine: float) -> Relation:
    return classify(new, [Existing(old, cosine)], conflict_similarity=0.85, duplicate_similarity=0.95,
                    instruction_similarity=(0.80, 0.70), retraction_similarity=0.5).relation


@pytest.mark.parametrize(("earlier", "later", "cosine", "relation"), [
    # this close: the later one stands
    ("answer with code first and explanation after.", "please give explanation first and code after.", 0.88,
     Relation.CONTRADICTS),
    # close, saying it changes something, about the same thing
    ("add the Japanese translation in brackets.", "you do not need to add Japanese translation anymore.", 0.75,
     Relation.CONTRADICTS),
    # equally close, but nothing says it replaces anything: two instructions
    ("add the Japanese translation in brackets.", "cite the Japanese source of each quote.", 0.75,
     Relation.INDEPENDENT),
    # about different things
    ("always add sources.", "use metric units from now on.", 0.26, Relation.INDEPENDENT),
    # close and both saying "stop", but about two different things
    ("Stop using emojis in their answers, always.", "Stop using exclamation marks in their answers, always.", 0.754,
     Relation.INDEPENDENT),
])
def test_a_later_instruction_replaces_an_earlier_one_about_the_same_thing_only(
        earlier: str, later: str, cosine: float, relation: Relation) -> None:
    old = instruction("a", f"How to answer the user: {earlier}", 0)
    new = instruction("b", f"How to answer the user: {later}", 9)
    assert resolve(new, old, cosine) is relation


@pytest.mark.parametrize(("said", "relation"), [
    # "from now on" opened the user's words, and is no part of the rule stored
    ("from now on: explain reasoning before code. tired of just snippets", Relation.CONTRADICTS),
    # the same rule said with no word of change: two rules
    ("explain reasoning before code. tired of just snippets", Relation.INDEPENDENT),
])
def test_a_rule_whose_words_said_a_change_replaces_a_close_one_on_its_topic(said: str, relation: Relation) -> None:
    old = instruction("a", "How to answer the user: answers: code first, minimal prose.", 0)
    new = instruction("b", "How to answer the user: explain reasoning before code.", 9)
    new = new.model_copy(update={"provenance": Provenance(source=SourceKind.EXTRACTED, evidence=said)})
    assert resolve(new, old, 0.741) is relation


def test_a_negated_fact_retires_the_value_it_names_in_another_slot() -> None:
    old = fact("a", "hobby:volleyball", "User's hobby: volleyball.")
    new = fact("b", "habit:volleyball", "User no longer does volleyball.", polarity=False, days=30)
    assert resolve(new, old, 0.62) is Relation.CONTRADICTS
    # a fact that does not name the value stays
    other = fact("c", "hobby:chess", "User's hobby: chess.")
    assert resolve(new, other, 0.62) is Relation.INDEPENDENT


def test_old_or_former_in_a_retraction_is_no_word_the_old_fact_must_have() -> None:
    # "traded in the old F-150": the key old_150 retires "User owns 2015 F-150."
    old = fact("a", "owns:2015_150", "User owns 2015 F-150.")
    new = fact("b", "owns:old_150", "User no longer owns old F-150.", polarity=False, days=30)
    assert resolve(new, old, 0.8) is Relation.CONTRADICTS
    # the other words of the key still must be there
    assert resolve(new, fact("c", "owns:2022_silverado", "User owns 2022 Silverado."), 0.8) is Relation.INDEPENDENT


def test_a_retraction_in_a_slot_without_a_key_retires_the_value_it_names_in_another_slot() -> None:
    # "I switched from Affinity Designer to Adobe Illustrator", filed under the project's stack
    old = fact("a", "uses:affinity_designer", "User uses Affinity Designer.")
    new = fact("b", "project_stack", "User's project no longer uses Affinity Designer.", polarity=False, days=30)
    assert resolve(new, old, 0.7) is Relation.CONTRADICTS
    assert resolve(new, fact("c", "uses:ipad", "User uses iPad."), 0.7) is Relation.INDEPENDENT


@pytest.mark.parametrize(("old_subject", "old_content", "new_subject", "new_content", "category", "relation"), [
    # a constraint's old value is the larger part of the one retracted
    ("avoids:gluten", "User avoids gluten.", "diet", "User no longer follows this diet: gluten free.",
     Category.CONSTRAINT, Relation.CONTRADICTS),
    ("allergy:lactos", "User is allergic to lactose.", "allergy:lactos_intoler",
     "User is not allergic to lactose intolerant.", Category.CONSTRAINT, Relation.CONTRADICTS),
    # a small part of it: the retraction is about something narrower
    ("avoids:dairy", "User avoids dairy.", "allergy:dairy_milk_chocol", "User is not allergic to dairy milk chocolate.",
     Category.CONSTRAINT, Relation.INDEPENDENT),
    # outside the constraints the longer value is another thing
    ("likes:coffee", "User likes coffee.", "likes:coffee_cake", "User no longer likes coffee cake.",
     Category.PREFERENCE, Relation.INDEPENDENT),
])
def test_a_negated_constraint_retires_a_fact_whose_value_is_at_least_half_of_its_own(
        old_subject: str, old_content: str, new_subject: str, new_content: str, category: Category,
        relation: Relation) -> None:
    old = fact("a", old_subject, old_content).model_copy(update={"category": Category.CONSTRAINT})
    new = fact("b", new_subject, new_content, polarity=False, days=30).model_copy(update={"category": category})
    assert resolve(new, old, 0.6) is relation


def test_a_retraction_of_one_value_and_a_fact_of_another_leave_each_other_be() -> None:
    lower_carb = fact("a", "diet", "User's diet: lower carb.")
    no_keto = fact("b", "diet", "User no longer follows this diet: keto.", polarity=False)
    assert resolve(no_keto, lower_carb, 0.6) is Relation.INDEPENDENT
    assert resolve(lower_carb, no_keto, 0.6) is Relation.INDEPENDENT
    # the value it names is retired as before
    assert resolve(no_keto, fact("c", "diet", "User's diet: keto."), 0.7) is Relation.CONTRADICTS


def test_instructions_filed_under_different_answer_slots_still_replace_each_other() -> None:
    old = fact("a", "answer_tone", "How to answer the user: add the Japanese translation in brackets.")
    new = instruction("b", "How to answer the user: you do not need to add Japanese translation anymore.", 9)
    assert resolve(new, old, 0.79) is Relation.CONTRADICTS
    # a fact outside the answer slots is never an instruction's to replace
    assert resolve(new, fact("c", "learning:japanes", "User is learning Japanese."), 0.79) is Relation.INDEPENDENT


@pytest.mark.parametrize(("content", "lifts"), [
    ("How to answer the user: You do not need to add Japanese translation anymore.", True),
    ("How to answer the user: no need for sources now.", True),
    ("How to answer the user: you can stop using bullet points.", True),
    ("How to answer the user: you don't need to explain every error anymore, only correct them.", False),
    ("How to answer the user: no more tables, bullet points are easier on my phone.", False),
    ("How to answer the user: always add sources.", False),
    ("How to answer the user: you don't need to add the romaji anymore, thanks!", True),
    ("How to answer the user: no need to translate anymore :)", True),
    ("How to answer the user: you don't have to translate anymore.", True),
    ("How to answer the user: you can skip the intro and get straight to the code.", False),
])
def test_an_instruction_that_only_lifts_another_is_not_injected_once_it_has(content: str, lifts: bool) -> None:
    assert only_lifts("instruction:x", content) is lifts
    assert not only_lifts("likes:x", content)  # only answer rules are lifted this way


@pytest.mark.parametrize(("new_confidence", "source", "new_wins"), [
    (0.67, SourceKind.EXTRACTED, False),  # "joined a climbing gym near Sendlinger Tor" -> job: Sendlinger
    (0.85, SourceKind.EXTRACTED, True),  # about as sure: the later statement stands
    (0.67, SourceKind.USER_EXPLICIT, True),  # a correction ("now I work at ...") wins however unsure
])
def test_a_far_less_certain_value_does_not_replace_a_slot_without_a_word_of_change(
        new_confidence: float, source: SourceKind, new_wins: bool) -> None:
    old = fact("a", "job", "User's job: engineer at BMW.").model_copy(update={"confidence": 0.95})
    new = fact("b", "job", "User's job: Sendlinger.", days=30, source=source).model_copy(
        update={"confidence": new_confidence})
    result = classify(new, [Existing(old, 0.3)], conflict_similarity=0.85, duplicate_similarity=0.95,
                      doubt_margin=0.15)
    assert result.relation is Relation.CONTRADICTS
    assert result.new_wins is new_wins
    # without the margin the later value always stands
    assert classify(new, [Existing(old, 0.3)], conflict_similarity=0.85, duplicate_similarity=0.95).new_wins


def said_in(conversation: str, mid: str, subject: str, category: Category, content: str, *, minutes: int = 0,
            source: SourceKind = SourceKind.EXTRACTED) -> Memory:
    when = T0 + timedelta(minutes=minutes)
    return Memory(memory_id=mid, tenant_id="t", user_id="u", category=category, subject=subject, content=content,
                  confidence=0.9, created_at=when, updated_at=when, last_confirmed_at=when,
                  provenance=Provenance(source=source, conversation_id=conversation))


@pytest.mark.parametrize(("subject", "category", "old", "new", "second_conversation", "source", "new_wins"), [
    # an aside later in the same sitting does not replace what the user said of themselves
    ("education", Category.BIOGRAPHICAL, "User's studies: part-time MSc in nursing.",
     "User's studies: cardiothoracic.", "c1", SourceKind.EXTRACTED, False),
    ("name", Category.BIOGRAPHICAL, "User's name is Harold Whitcombe.", "User's name is Whitcombe.", "c1",
     SourceKind.EXTRACTED, False),
    ("diet", Category.CONSTRAINT, "User's diet: vegetarian.", "User's diet: keto.", "c1", SourceKind.EXTRACTED,
     False),
    # the same value said in a later conversation is a change
    ("education", Category.BIOGRAPHICAL, "User's studies: part-time MSc in nursing.",
     "User's studies: cardiothoracic.", "c2", SourceKind.EXTRACTED, True),
    # a change said as one ("actually", "now") stands in the same sitting too
    ("home_location", Category.BIOGRAPHICAL, "User lives in Leeds.", "User lives in York.", "c1",
     SourceKind.USER_EXPLICIT, True),
    # project facts follow the conversation ("backend: go, postgres" then "side project: rust cli")
    ("project_stack", Category.PROJECT_FACT, "User's project uses postgres.", "User's project uses rust.", "c1",
     SourceKind.EXTRACTED, True),
    # answer rules are refined as a conversation goes
    ("answer_style", Category.PROCEDURAL, "How to answer the user: no long answers.",
     "How to answer the user: 3 sentences max.", "c1", SourceKind.EXTRACTED, True),
])
def test_a_second_value_later_in_the_same_conversation_does_not_replace_the_users_own_slot(
        subject: str, category: Category, old: str, new: str, second_conversation: str, source: SourceKind,
        new_wins: bool) -> None:
    first = said_in("c1", "a", subject, category, old)
    second = said_in(second_conversation, "b", subject, category, new, minutes=5, source=source)
    result = classify(second, [Existing(first, 0.3)], conflict_similarity=0.85, duplicate_similarity=0.95,
                      doubt_margin=0.15)
    assert result.relation is Relation.CONTRADICTS
    assert result.new_wins is new_wins


def test_a_lift_retires_only_an_instruction_about_the_same_thing() -> None:
    from mnemo.domain.conflicts import lifts_instruction

    lift = fact("b", "instruction:need_add_japanes",
                "How to answer the user: You do not need to add Japanese translation anymore.", days=9)
    assert lifts_instruction(lift, fact("a", "instruction:add_japanes",
                                        "How to answer the user: please always add the Japanese translation."))
    assert not lifts_instruction(lift, fact("c", "answer_format", "How to answer the user: use bullet points."))
    assert not lifts_instruction(lift, fact("d", "likes:japanes", "User likes Japanese translation."))


def told(slot: str, category: Category, mid: str, content: str, evidence: str, days: int = 0) -> Memory:
    """A fact of ``slot`` the extractor made of ``evidence``."""
    return fact(mid, f"{slot}:{mid}", content, days=days).model_copy(
        update={"category": category, "provenance": Provenance(evidence=evidence)})


def plan(mid: str, content: str, evidence: str, days: int = 0) -> Memory:
    return told("plan", Category.EPISODIC, mid, content, evidence, days)


@pytest.mark.parametrize(("old", "new", "evidence", "moved"), [
    # the same doing on another day, said as a change: the earlier day no longer holds
    ("User plans: go back to Busan on July 3 (for 2026-07-03).", "User plans: go back on July 10 (for 2026-07-10).",
     "my flight home is changed, now I go back on July 10 not July 3", True),
    ("User plans: wedding in June (for 2026-06).", "User plans: wedding in September (for 2026-09).",
     "the wedding got postponed to September", True),
    # another doing, or the same doing said again with no word of change, is another plan
    ("User plans: trip to Paris (for 2026-05).", "User plans: trip to Rome (for 2026-06).",
     "now planning a trip to Rome in June too", False),
    ("User plans: dentist on Monday (for 2026-01-05).", "User plans: dentist on Friday (for 2026-01-09).",
     "dentist on friday for the kids", False),
    # "now" alone is no change of day: a second appointment
    ("User plans: dentist on Monday (for 2026-01-05).", "User plans: dentist on Friday (for 2026-01-09).",
     "and now the dentist on Friday for a filling", False),
    # the same day is a restatement, not a change
    ("User plans: go back to Busan on July 3 (for 2026-07-03).", "User plans: go back on July 3 (for 2026-07-03).",
     "now I go back on July 3", False),
    # the same barbecue said again in other words, the change said after it
    ("User plans: barbecue in the garden 6 June (for 2026-06-06).",
     "User plans: Omar's barbecue will be on Sunday 14 June (for 2026-06-14).",
     "so Omar's barbecue will be on Sunday 14 June now, the forecast is better", True),
    # a word in common is not enough where each names a place the other does not
    ("User plans: trip to Paris in May (for 2026-05).", "User plans: trip to Rome in June (for 2026-06).",
     "the Rome trip got moved to June", False),
])
def test_a_plan_said_again_for_another_day_in_words_of_change_moves_it(old: str, new: str, evidence: str,
                                                                        moved: bool) -> None:
    result = classify(plan("b", new, evidence, days=20), [Existing(plan("a", old, old), 0.6)],
                      conflict_similarity=0.85, duplicate_similarity=0.95)
    assert (result.relation is Relation.CONTRADICTS and result.new_wins) is moved


@pytest.mark.parametrize(("rule", "parts"), [
    ("you don't have to translate into Spanish anymore, I read English fine these days",
     ("you don't have to translate into Spanish anymore", "I read English fine these days")),
    ("no more numbered lists please; plain short paragraphs suit my screen reader",
     ("no need for numbered lists", "plain short paragraphs suit my screen reader")),
    ("stop using emoji, keep it formal for the board",
     ("no need for emoji", "keep it formal for the board")),
])
def test_a_lift_followed_by_what_holds_instead_comes_apart(rule: str, parts: tuple[str, str]) -> None:
    assert lift_and_rest(rule) == parts
    assert only_lifts("instruction:x", parts[0])  # the lift: never injected once it has retired its rule


@pytest.mark.parametrize("rule", [
    "no more emoji please",  # a rule of its own, nothing follows it
    "you don't need to add the French anymore, thanks",  # a courtesy asks nothing
    "answer in Dutch, no more English",  # opens with what it asks
    "no more emoji and keep it short, it reads better",  # the drop asks something beside it
    "you don't need to add French, just give the Dutch",  # asks more before the pause
])
def test_a_rule_that_does_not_open_with_a_lift_alone_stays_whole(rule: str) -> None:
    assert lift_and_rest(rule) is None


def negated_plan(mid: str, content: str, days: int = 0) -> Memory:
    return plan(mid, content, content, days).model_copy(update={"polarity": False})


@pytest.mark.parametrize(("old", "new", "cosine", "called_off"), [
    # "I can't run the race this year after all": the half marathon in May is off
    ("User plans: Leeds half marathon 10 May (for 2026-05-10).", "User no longer plans: race this year (for 2026).",
     0.66, True),
    ("User plans: Leeds half marathon 10 May (for 2026-05-10).", "User no longer plans: the race.", 0.66, True),
    # the day outside the period the negation names, another place, or too far apart: another plan
    ("User plans: trip to Lisbon in June (for 2026-06).", "User no longer plans: gym this week (for 2026-01-02).",
     0.7, False),
    ("User plans: trip to Paris in May (for 2026-05).", "User no longer plans: going to Rome (for 2026-05).",
     0.68, False),
    ("User plans: Leeds half marathon 10 May (for 2026-05-10).", "User no longer plans: the race.", 0.4, False),
])
def test_a_negated_plan_calls_off_the_plan_it_refers_back_to(old: str, new: str, cosine: float,
                                                             called_off: bool) -> None:
    result = classify(negated_plan("b", new, days=20), [Existing(plan("a", old, old), cosine)],
                      conflict_similarity=0.85, duplicate_similarity=0.95, retraction_similarity=0.5)
    assert (result.relation is Relation.CONTRADICTS and result.new_wins) is called_off


@pytest.mark.parametrize(("retraction", "old", "ends"), [
    # every word of the retraction's value in the old fact's key, the same slot
    (("habit:cycl", "User no longer: cycling."), ("habit:cycl_work_every", "User's routine: cycle to work every day."),
     True),
    # another journey of the same kind is another routine
    (("habit:walk_station_night", "User no longer: walking to the station at night."),
     ("habit:walk_work_every", "User's routine: walk to work every day."), False),
    (("health:melatonin", "User's health no longer: melatonin."), ("health:melatonin_3mg", "User's health: melatonin "
                                                                                            "3mg."), True),
    # more said than the old fact holds, another slot, a taste
    (("habit:walk_work", "User no longer: walking to work."), ("habit:walk_dog_every", "User's routine: walks the "
                                                                                       "dog every evening."), False),
    # a pastime is one slot here: hobby or routine is the tagger's guess
    (("hobby:cycl", "User no longer does cycling."), ("habit:cycl_work_every", "User's routine: cycle to work."), True),
    (("likes:cycl", "User no longer likes cycling."), ("habit:cycl_work_every", "User's routine: cycle to work."),
     False),
    (("likes:coffe", "User no longer likes coffee."), ("likes:coffe_cake", "User likes coffee cake."), False),
])
def test_a_retraction_ends_the_facts_of_its_slot_that_hold_its_whole_value(
        retraction: tuple[str, str], old: tuple[str, str], ends: bool) -> None:
    from mnemo.domain.conflicts import ends_in_its_slot

    said = fact("r", retraction[0], retraction[1], polarity=False)
    assert ends_in_its_slot(said, fact("o", old[0], old[1], days=-3)) is ends


@pytest.mark.parametrize(("retraction", "ends"), [
    (("hobby:juic_bar", "User no longer does juice bar."), True),
    (("hobby:gym", "User no longer does gym."), False),             # no word of the job's
    (("likes:juic_bar", "User no longer likes juice bar."), False),  # a taste, not a pastime
    (("hobby:run", "User no longer does running."), False),            # an activity, not the workplace
])
def test_a_pastimes_retraction_that_names_the_workplace_ends_the_job(retraction: tuple[str, str], ends: bool) -> None:
    from mnemo.domain.conflicts import ends_the_job

    job = fact("j", "job", "User's job: a juice bar in town.", days=-3)
    assert ends_the_job(fact("r", retraction[0], retraction[1], polarity=False), job) is ends
