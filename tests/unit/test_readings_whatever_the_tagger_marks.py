"""Readings that hold wherever the tagger's span starts or ends, whichever slot it picks and whatever polarity it
reads: found with a tagger retrained on new voices, whose spans and slots differ from the shipped one's."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.conflicts import Existing, Relation, classify, says_a_change
from mnemo.domain.extraction.candidates import Candidate
from mnemo.domain.extraction.new_jobs import bosses_at, left_jobs
from mnemo.domain.extraction.pipeline import (
    _A_STAY,
    _MOVED_HOME,
    ended_in_passing,
    ended_just_after,
    ended_just_before,
    gone_after,
    joined_fragments,
    left_in_a_switch,
    nearly_ended,
    said_no_longer,
    slot_candidate,
)
from mnemo.domain.extraction.screen import screen
from mnemo.domain.extraction.segment import clause_around
from mnemo.domain.extraction.shifts import is_shift
from mnemo.domain.extraction.slots import SLOTS
from mnemo.domain.extraction.switches import switched_to
from mnemo.domain.extraction.tagger import Span, _word_bounds
from mnemo.domain.models import Category, Memory, Message, Provenance, SourceKind

T0 = datetime(2026, 3, 2, 10, tzinfo=UTC)


@pytest.mark.parametrize(("value", "clause", "left"), [
    ("methotrexate", "The rheumatologist changed me from methotrexate to a weekly injection", True),
    ("Square Online", "We migrated the shop from Square Online Store to Shopify", True),
    ("Zoho", "We have shifted accounts from Zoho Books to Tally Prime", True),
    ("Lyon", "we moved over from Lyon to Paris", True),
    ("Paris", "we moved over from Lyon to Paris", False),  # the one gone to
    ("Lyon", "we are moving from Lyon to Paris in May", False),  # not happened yet
    ("Cypress", "I want to switch from Cypress to Playwright", False),  # only wished
    ("London", "I commute from London every day", False),  # no switch
    # trips: a workplace, a gym, a home gone from and come back to
    ("Tesco", "After my shift I went from Tesco to my mum's", False),
    ("gym", "went from the gym to the pub with the lads last night", False),
    ("Leeds", "We went from Leeds to London for the weekend, back home in Leeds now", False),
])
def test_the_value_a_switch_left_is_read_as_ended(value: str, clause: str, left: bool) -> None:
    assert left_in_a_switch(value, clause) is left


def said(slot: str, value: str, clause: str) -> bool:
    message = Message(role="user", content=clause, message_id="m1", created_at=T0)
    return slot_candidate(SLOTS[slot], value, clause, False, message, 0.7).correction


def test_new_in_a_place_name_or_a_word_of_the_value_says_no_change() -> None:
    # "New Zealand" made a lottery daydream a correction, which outranked the home said surely
    assert not said("home_location", "New Zealand", "Mind you, if we won the lottery I'd go to New Zealand")
    assert not said("hobby", "New Wave records", "I collect New Wave records")
    assert said("home_location", "Leeds", "we moved to Leeds")
    assert said("job", "nurse", "I'm a nurse now")
    # an instruction's value is its whole clause, whose "now" still says the rule changed
    assert said("answer_length", "You can give detailed answers now", "You can give detailed answers now")


def memory(mid: str, subject: str, content: str, days: int) -> Memory:
    when = T0 + timedelta(days=days)
    return Memory(memory_id=mid, tenant_id="t", user_id="u", category=Category.PROJECT_FACT, subject=subject,
                  content=content, confidence=0.95, created_at=when, updated_at=when, last_confirmed_at=when,
                  provenance=Provenance(source=SourceKind.EXTRACTED))


@pytest.mark.parametrize(("old", "new", "relation"), [
    # vectors barely see numbers: "30 June" was merged into "15 June" as the same fact
    ("User's project deadline: 15 June.", "User's project deadline: 30 June.", Relation.CONTRADICTS),
    ("User's project deadline: 15 June.", "User's project deadline: 15 June!", Relation.SAME),
    # one with no number may be the same fact said with more or less detail
    ("User's project deadline: mid June.", "User's project deadline: 15 June.", Relation.SAME),
])
def test_other_numbers_in_a_slots_value_are_a_change(old: str, new: str, relation: Relation) -> None:
    stored = Existing(memory("a", "project_deadline", old, 0), 0.97)
    result = classify(memory("b", "project_deadline", new, 7), [stored], conflict_similarity=0.85,
                      duplicate_similarity=0.95)
    assert result.relation is relation


def test_a_place_he_lives_in_after_a_comma_is_his() -> None:
    text = "tryin to plan a fishin trip in july with my brother gary, he lives out in regina. we go every year"
    at = text.find("regina")
    clause = clause_around(text, at, at + len("regina"))
    assert screen("regina", clause, "home_location") == "about_someone_else"
    assert screen("Leeds", "we go every year, I live in Leeds", "home_location") is None


@pytest.mark.parametrize(("text", "moved"), [
    ("We've done it, we've actually moved, we're in Lewes", True),
    ("we've officially moved!", True),
    ("i just moved", True),
    ("we moved the sofa", False),
])
def test_a_move_said_with_an_adverb_is_a_move(text: str, moved: bool) -> None:
    assert bool(_MOVED_HOME.search(text)) is moved


@pytest.mark.parametrize(("before", "stay"), [
    ("Richard and I shall be in ", True),
    ("we'll be in ", True),
    ("I'm going to be at ", True),
    ("we're in ", False),  # where they live now
    ("I live in ", False),
])
def test_a_place_the_user_will_be_in_is_a_stay(before: str, stay: bool) -> None:
    assert bool(_A_STAY.search(before)) is stay


@pytest.mark.parametrize(("text", "start", "end", "whole"), [
    ("my name is Hamza Al-Khatib, and", 11, 19, "Hamza Al-Khatib"),  # the span ended on "Al"
    ("I'm Sean O'Neill, from Cork", 4, 10, "Sean O'Neill"),
    ("my sister's yoga class", 3, 9, "sister"),  # a possessive is no part of the word
    ("a part-time job", 2, 6, "part-time"),
    # what a place is to something else is no part of it ("User lives in Lisbon-based.")
    ("we're Lisbon-based now", 6, 12, "Lisbon"),
    ("I'm London-based, work in tech", 4, 16, "London"),  # the span took it in
    ("I live in Stoke-on-Trent", 10, 15, "Stoke-on-Trent"),
    ("I'm plant-based", 4, 9, "plant-based"),  # a diet
])
def test_a_word_split_at_a_hyphen_or_an_apostrophe_is_one_word(text: str, start: int, end: int, whole: str) -> None:
    s, e = _word_bounds(text, start, end)
    assert text[s:e] == whole


def test_a_jobs_pieces_with_only_a_space_between_are_one_job() -> None:
    text = "I have served as imam of Masjid Al-Noor in Bradford"
    first, second = text.find("imam"), text.find("Al-Noor")
    spans = [Span(first, first + len("imam of Masjid"), "job", 0.62, False),
             Span(second, second + len("Al-Noor"), "job", 0.94, False)]
    joined = joined_fragments(text, spans)
    assert [text[s.start:s.end] for s in joined] == ["imam of Masjid Al-Noor"]
    # a comma parts two values
    apart = "nurse, Guy's hospital"
    assert len(joined_fragments(apart, [Span(0, 5, "job", 0.9, False), Span(7, 21, "job", 0.9, False)])) == 2


@pytest.mark.parametrize(("text", "places"), [
    ("so, big news, I gave my notice at Lupa, Paolo was sad", ["Lupa"]),
    ("I handed in my notice at Deloitte", ["Deloitte"]),
    ("I've given my notice to Asda", ["Asda"]),
])
def test_notice_given_at_a_workplace_leaves_it(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in left_jobs(text)] == places


def test_no_more_right_before_a_value_ends_it() -> None:
    assert ended_just_before("6am greggs shifts", "(no more 6am greggs shifts tho thank god)")
    assert not ended_just_before("6am greggs shifts", "I love my 6am greggs shifts")


@pytest.mark.parametrize(("value", "shift"), [
    ("nights mostly, 3x/wk, 12h", True),
    ("day shifts only", True),
    ("works day shift, 7a-7p", True),
    ("days out with the kids", False),
    ("nightshift club", False),
])
def test_a_shift_said_bare_is_the_one_shift(value: str, shift: bool) -> None:
    assert is_shift(value) is shift


def test_changing_a_preference_says_a_change() -> None:
    rule = memory("a", "instruction:x", "How to answer the user: changing their preference: explanation first.", 0)
    assert says_a_change(rule)
    assert not says_a_change(memory("b", "instruction:y", "How to answer the user: explanation first.", 0))


def test_a_value_said_out_ends_it() -> None:
    assert ended_just_after("Python", "stack is Golang + chi + Postgres now, Python's out")
    assert not ended_just_after("Python", "Python is out of the question for the frontend, we use it for the api")


def test_a_commute_is_one_routine_a_new_one_replaces() -> None:
    old, new = said_fact("habit", "commute is u7, 25 min"), said_fact("habit", "commute by bike now")
    assert old.subject == new.subject
    assert said_fact("habit", "cycle to work").subject != old.subject


def said_fact(slot: str, value: str) -> Candidate:
    message = Message(role="user", content=value, message_id="m1", created_at=T0)
    return slot_candidate(SLOTS[slot], value, value, False, message, 0.9)


@pytest.mark.parametrize(("value", "clause", "ended"), [
    ("Python", "Python's out, we use Go now", True),
    ("gluten free", "gluten free experiment is over", True),
    # another subject after a comma or a conjunction is what is over or out, not the value
    ("keto", "I'm keto, bread is out", False),
    ("keto", "I'm keto so bread is gone", False),
    ("Severance", "My favourite show is Severance, season 2 is out", False),
    ("iPhone 15", "I use iPhone 15, iPhone 16 is out", False),
    ("Spanish", "I'm learning Spanish, the results are out", False),
    # a thing just released
    ("iPhone", "the new iPhone is out", False),
])
def test_only_the_value_itself_said_out_or_over_is_ended(value: str, clause: str, ended: bool) -> None:
    assert ended_just_after(value, clause) is ended


@pytest.mark.parametrize(("value", "clause", "ended"), [
    ("Zoloft", "I'm on Lexapro now, no more Zoloft", True),
    ("drinking", "I gave up drinking for the sake of my liver", True),
    ("sugar", "I gave up sugar for two weeks now", True),
    ("the gym", "I quit the gym this week", True),  # when it ended
    ("the pill", "I stopped the pill this month", True),
    # a pause: the value is the user's still
    ("gaming", "No more gaming until my exams are done", False),
    ("running", "my knee hurts, no more running this week", False),
    ("pizza", "no more pizza for me tonight", False),
    ("gym", "I quit the gym for now", False),
])
def test_an_ending_for_a_while_only_ends_nothing(value: str, clause: str, ended: bool) -> None:
    assert ended_just_before(value, clause) is ended


@pytest.mark.parametrize("text", [
    "I gave my notice to my landlord today, we're moving to Leeds",
    "I gave my notice to the landlord, moving out in May",
    "I gave my notice to HR this morning",
    "I resigned from my post today",
    "I gave my notice at the end of last month",
    "I handed in my notice at the same time as my colleague",
])
def test_a_notice_given_to_someone_names_no_workplace(text: str) -> None:
    assert left_jobs(text) == []


def test_a_commute_to_somewhere_else_than_work_is_a_routine_of_its_own() -> None:
    to_work = said_fact("habit", "commute to work is 40 minutes on the train")
    assert said_fact("habit", "commute by bike now").subject == to_work.subject
    assert said_fact("habit", "commute to the office by train").subject == to_work.subject
    assert said_fact("habit", "commute to uni twice a week").subject != to_work.subject


@pytest.mark.parametrize(("text", "ended"), [
    ("I quit the gym last month", ["gym"]),
    ("I'd quit the gym years ago, now I swim", ["gym"]),  # "'d" of "had"
    # a condition, a near miss: the user goes still
    ("I'd quit the gym if it wasn't so close", []),
    ("I nearly quit the choir last week haha", []),
    ("I almost gave up the allotment but stuck with it", []),
])
def test_an_ending_on_a_condition_or_nearly_made_ends_nothing(text: str, ended: list[str]) -> None:
    assert [name for _slot, name, _clause in ended_in_passing(text, [])] == ended


def test_a_near_miss_is_read_around_the_tagger_s_own_ending() -> None:
    assert nearly_ended("running", "I almost gave up running but stuck with it")
    assert not nearly_ended("running", "I gave up running, almost a year ago")
    assert not ended_just_before("the choir", "I nearly quit the choir last week")


@pytest.mark.parametrize(("clause", "hypothetical"), [
    ("Mind you, if we won the lottery I'd go to New Zealand", True),
    ("if we ever moved out of London I'd want somewhere by the sea", True),
    ("Y si algún día me toca la lotería, me compro una casa en Ibiza jaja", True),
    ("estoy pensando en trabajar en Irlanda", True),
    ("soy alérgica a la penicilina, por si algún día te pregunto de medicinas", False),  # "in case one day"
    ("I live in Leeds and if it rains I'll take the bus", False),
    ("I live in Leeds, if I'm honest I'd rather be in York", False),
])
def test_what_the_user_would_do_if_is_no_fact(clause: str, hypothetical: bool) -> None:
    assert (screen("Leeds", clause, "home_location") == "hypothetical") is hypothetical


@pytest.mark.parametrize(("value", "clause", "home"), [
    ("Ponsonby", "I'm a physio at a clinic in Ponsonby, 3 days a week", False),
    ("Bay", "I'm self-employed now doing home visits for ACC clients around the Bay", False),
    ("Hackney", "I live in a flat above a shop in Hackney", True),
    ("Leeds", "we moved to Leeds", True),
    # working somewhere, a few words between: the workplace ("TK" of "TK Electric" read as a home)
    ("TK", "Piotr is working with me now in TK Electric, he do the plumbing part", False),
    ("Deloitte", "I work part-time in Deloitte", False),
    ("Bristol", "work from home in Bristol", True),
    ("Leeds", "i live and work in Leeds", True),
    # someone else, then where they are from
    ("Nebraska", "Sold it to a fella from Nebraska", False),
    ("Kampala", "Got two wholesale buyers from Kampala, one wants 200 pieces by June", False),
    # a workplace's town, after its place or said of the office, a department, the rounds
    ("Metrotown", "Office is Burnaby, Metrotown", False),
    ("Randburg", "I have now completed my first month as Head of Department in Randburg", False),
    ("dundee", "38 years on the rounds in dundee", False),
    ("Phoenix", "I'm a night shift nurse in Phoenix", True),
    ("Columbus", "been a plumber for 30 yrs, work for Buckeye Mechanical here in Columbus Ohio", True),
    ("Cork", "met a lovely couple from Cork at the hostel", False),
    ("Leeds", "I'm from Leeds", True),
    ("Singapore", "doctor in Singapore give me new inhaler, Symbicort", False),
    ("Leeds", "I'm a nurse in Leeds", True),
    ("Leeds", "I'm a nurse from Leeds", True),
    # where a journey starts: an airport, a station, a trip's place
    ("Luton", "in ten days, on Friday, we fly to Kraków from Luton", False),
    ("Manchester", "flying out of Manchester on the 3rd to see my sister", False),
    ("Lisbon", "just got back from Lisbon", False),
    ("Bergen", "I'm Sven, 52, a ferry captain out of Bergen", True),  # a base, not a journey
    ("Dallas", "I drive a truck out of Dallas, mostly regional runs", True),
    ("Brighton", "I take the train from Brighton to London every day for work", True),  # the way to work
    ("Brighton", "I commute by train from Brighton, 55 min each way", True),
    ("Leeds", "I'm a travel nurse from Leeds", True),
    ("Leeds Bradford", "I fly out of Leeds Bradford a lot since I live 10 mins away", True),
    ("Leeds", "we moved here from Leeds last year and I love it", True),
])
def test_a_place_said_of_the_workplace_is_no_home(value: str, clause: str, home: bool) -> None:
    assert (screen(value, clause, "home_location") is None) is home


def test_a_value_that_did_not_work_out_is_ended() -> None:
    assert ended_just_after("keto", "so keto just wasn't working for me man I was miserable")
    assert ended_just_after("night shifts", "the night shifts didn't work out")
    assert not ended_just_after("laptop", "my laptop isn't working, can you help")


def test_an_ending_denied_ends_nothing() -> None:
    assert not said_no_longer("habit", "I never stopped going to the gym, even in lockdown", "going to the gym")
    assert not said_no_longer("hobby", "I haven't given up on the guitar", "guitar")
    assert said_no_longer("habit", "I stopped going to the gym", "going to the gym")


@pytest.mark.parametrize(("value", "clause", "gone"), [
    ("boyfriend", "me and my boyfriend Dan split up last week", True),
    ("girlfriend", "my girlfriend and I broke up", True),
    ("husband", "me and my husband went to Rome", False),
    ("husband", "me and my husband Dan split the bill", False),
])
def test_a_partner_the_user_parted_from_is_gone(value: str, clause: str, gone: bool) -> None:
    assert gone_after("relationship_status", value, clause) is gone


def test_me_opening_a_value_is_the_users_my() -> None:
    assert said_fact("family", "me nan").content == "User's family: their nan."
    assert said_fact("instruction", "tell me straight").content.endswith("tell them straight.")


@pytest.mark.parametrize(("text", "places"), [
    ("my manager at chatime is sooo annoying", ["chatime"]),
    ("My boss at Blue Horizon Charters gave me more days", ["Blue Horizon Charters"]),
    ("my boss at work is nice", []),
    ("my sister's manager at Tesco is awful", []),
    ("my old boss at Deloitte called", []),
    # the user's own job or shift named with the workplace
    ("I get up at 5 for my shift at the depot", ["depot"]),
    ("my new job at the bank means he starts full days at nursery", ["bank"]),
    ("my old job at Tesco was better", []),
    ("my husband's job at Ford is stressful", []),
    ("my job at work is boring", []),
])
def test_the_workplace_of_the_users_manager_is_theirs(text: str, places: list[str]) -> None:
    assert [place for _s, _e, place in bosses_at(text)] == places


@pytest.mark.parametrize(("text", "tools"), [
    ("rewrote the shipper in rust. gc pauses were killing p99", ["rust"]),
    ("migrating the app to kotlin next month", ["kotlin"]),
    ("I rewrote the intro in five minutes", []),
    ("I rewrote my essay in english", []),
    ("rewrote the whole thing in one go", []),
    ("thinking of rewriting it in rust", []),  # not done
])
def test_a_language_written_in_lower_case_after_a_verb_of_code_is_a_switch(text: str, tools: list[str]) -> None:
    assert [new for _slot, new, _old, _said, _sentence in switched_to(text)] == tools


@pytest.mark.parametrize(("value", "clause", "slot", "kept"), [
    # an internship is work: read as studies it ended the user's degree
    ("internship", "got internship at MTN as IT intern, tue n thur only", "education", False),
    ("nursing apprenticeship", "dropped out of my engineering course, switching to a nursing apprenticeship",
     "education", True),
    ("nursing at Kings", "I study nursing at Kings", "education", True),
    # a job word right after "my" is a person of the user's
    ("lecturer sez", "ma lecturer sez mi texting english is spoiling mi writing", "job", False),
    ("nurse at St Marys", "my job is nurse at St Marys", "job", True),
    ("bakery", "our bakery opens at 6", "job", True),  # the user's work, not a person
    ("internship year", "I'm in my internship year of my pharmacy degree at Bath", "education", True),
    ("internship year", "I'm doing an MSc in Data Science with an internship year", "education", True),
    ("internship", "got an internship at Google after uni!!", "education", False),
    ("Oliver", "Oliver has moved in, finally living together", "relationship_status", True),
    ("Priya", "Priya just said yes!!!", "relationship_status", True),
    # someone named getting married is not the user's relationship
    ("Maria", "Maria is getting married in June", "relationship_status", False),
    ("Tom", "Tom is my fiancé", "relationship_status", True),
    ("Tom", "Tom and I are getting married in June", "relationship_status", True),
    # a clinician's doing to a medicine is the user's treatment; a dose alone is no medicine
    ("Symbicort", "Doctor sahib stopped the Ventolin, now only Symbicort", "health", True),
    ("diabetic", "the doctor is diabetic herself, funny", "health", False),
    ("apixaban", "the GP stopped the warfarin and put him on apixaban", "health", False),
    # what a clinician finds is the user's condition
    ("arthrosis", "Doctor says arthrosis", "health", True),
    ("anxiety", "my therapist has anxiety herself, she told me", "health", False),  # the therapist's own
    ("two puffs", "two puffs morning and night and extra if needed", "health", False),
    # a diet tried for a few days is no diet
    ("vegana", "estoy vegana this week jaja", "diet", False),
    ("keto", "doing keto for a week to see", "diet", False),
    ("vegan", "I've been vegan for two years", "diet", True),
    ("low FODMAP", "I'm starting a low FODMAP diet this week, any tips", "diet", True),
    ("vegan", "I'm vegan, made a lovely curry today", "diet", True),
    ("vegan", "went vegan this week, no more dairy", "diet", True),
    ("Symbicort two puffs", "Symbicort two puffs morning and night", "health", True),
])
def test_work_is_no_studies_and_my_lecturer_no_job(value: str, clause: str, slot: str, kept: bool) -> None:
    assert (screen(value, clause, slot) is None) is kept
