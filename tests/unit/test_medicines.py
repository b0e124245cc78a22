"""Medicines the user takes: how a message names one, which one a switch leaves behind, which one a new medicine
replaces when the message does not name it (domain/extraction/medicines.py), and whose medicine it is."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.medicines import (
    ended_medicines,
    medicine_kind,
    medicines_in,
    own_medicines,
    replaces_its_kind,
    replaces_unnamed,
    same_kind,
    stored_medicine,
    taken_now_alone,
    which_replaced,
)
from mnemo.domain.extraction.screen import screen


@pytest.mark.parametrize(("text", "names"), [
    ("my gp put me on ramipril last week", ["ramipril"]),
    ("the nurse started me on sertraline 50mg", ["sertraline 50mg"]),
    ("i take losartan every morning", ["losartan"]),
    ("I take cetirizine every day in spring", ["cetirizine"]),  # an antihistamine's stem
    ("zopiclone helps me sleep, I take zopiclone at 10", ["zopiclone"]),
    ("been on prednisolone for 2 weeks for my asthma", ["prednisolone"]),
    ("I have been prescribed gabapentin for the nerve pain", ["gabapentin"]),
    ("the endo changed me from gliclazide to Trulicity, the doctor reckons it's better", ["Trulicity"]),
    ("they took me off naproxen and put me on celecoxib", ["celecoxib"]),
    ("Since two weeks I am taking Xarelto, the doctor says it is better", ["Xarelto"]),
    ("started on vitamin D tablets after the blood test", ["vitamin D"]),
    ("my new pills are called Entresto, the doctor says twice a day", ["Entresto"]),
    ("doc has me on metforman 500, sugar was bad", ["metforman 500"]),
    ("my GP put me on ramipril 5mg last week", ["ramipril 5mg"]),
    ("the consultant has started me on metformin, twice a day", ["metformin"]),
    ("doctor switched me off the sertraline and onto citalopram", ["citalopram"]),
    ("the specialist prescribed me beta blockers for the palpitations", ["beta blockers"]),
    ("the nurse increased my levothyroxine dose to 100 mcg", ["levothyroxine 100 mcg"]),
    ("my GP increased my levothyroxine from 50 micrograms to 75 micrograms", ["levothyroxine 75 micrograms"]),
    ("they lowered my ramipril from 10 to 5mg", ["ramipril 5mg"]),
    # the dose said first
    ("I take 5mg of amlodipine every morning", ["amlodipine 5mg"]),
    ("im on 40mg omeprazole daily for reflux", ["omeprazole 40mg"]),
    ("the GP put me on 5mg of ramipril", ["ramipril 5mg"]),
    # a change only wished or planned is not the dose now
    # a dose wished for is no dose now; the medicine the user calls theirs is theirs all the same
    ("my doctor wants to increase my sertraline from 50mg to 100mg but I said no", ["sertraline"]),
    ("the GP might reduce my amlodipine from 10mg to 5mg next month", ["amlodipine"]),
    # the two readers merged: each one's ways of saying it, read by the one reader
    ("the doc took me off the warfarin and on apixaban", ["apixaban"]),
    ("dr put me on Ozempic last month", ["Ozempic"]),
    ("the endo moved me straight onto Mounjaro", ["Mounjaro"]),
    ("they transferred me over to edoxaban, the doctor said it's simpler", ["edoxaban"]),
    ("was diagnosed in May and put on levothyroxine", ["levothyroxine"]),
    # no medicine: a bus, a swim, a shift, a weight, a course of nothing, one stopped
    ("I take the bus to work most days", []),
    ("the doctor said I should start swimming", []),
    ("my boss put me on nights again", []),
    ("I put on weight since the doctor visit", []),
    ("I'm on holiday next week, need my prescription early", []),
    ("stopped taking omeprazole, the heartburn is gone", []),
    ("I'm on Slack all day at work", []),
    ("the GP put me on a waiting list for physio", []),
    ("my manager put me on the Atlas project", []),
    ("I put on weight over the holidays", []),
    ("I take my dog to the vet on tuesdays, the vet's a doctor too", []),
])
def test_a_medicine_is_read_where_it_is_said_to_be_taken(text: str, names: list[str]) -> None:
    assert [m.name for m in medicines_in(text)] == names


@pytest.mark.parametrize(("text", "names"), [
    ("I'm on rosuvastatin now instead of simvastatin", ["simvastatin"]),
    ("my cardiologist changed me from bisoprolol to nebivolol", ["bisoprolol"]),
    ("the doctor changed my tablets. no more Warfarin, now it's Xarelto", ["Warfarin"]),
    ("swapped the naproxen for celecoxib, easier on my stomach", ["naproxen"]),
    ("I came off the citalopram last month", ["citalopram"]),
    ("no more late nights for me", []),
    ("I switched from Slack to Teams at work", []),
])
def test_the_medicine_a_switch_or_an_ending_leaves_behind_is_read(text: str, names: list[str]) -> None:
    assert [m.name for m in ended_medicines(text)] == names


@pytest.mark.parametrize(("text", "replaces"), [
    ("doc put me on nebivolol insted, the old ones made me dizzy", True),
    ("they changed my pills to candesartan", True),
    # typed as it comes; an old pill spoken of; someone switching the user to it
    ("gp put me on losartan 50mg now insted, the ramipril made me cough", True),
    ("the doctor put me on losartan 50mg, the old pill gave me a cough", True),
    ("the cardiologist switched me to apixaban last week", True),
    ("also started me on metformin 500mg", False),
    ("the doctor started me on sertraline", False),
    ("started vitamin D as well, the GP said my levels were low", False),
])
def test_a_new_medicine_said_to_take_an_unnamed_ones_place_is_read(text: str, replaces: bool) -> None:
    assert replaces_unnamed(text) is replaces


@pytest.mark.parametrize(("value", "evidence", "name"), [
    ("ramipril 5mg", "doc put me on ramipril 5mg", "ramipril"),
    ("Jardiance", "now im on Jardiance", "Jardiance"),
    ("high blood pressure", "i have high blood pressure", None),
    ("type 2 diabetes", "got type 2 diabetes last year", None),
])
def test_a_stored_health_fact_is_a_medicine_where_its_words_say_so(value: str, evidence: str,
                                                                     name: str | None) -> None:
    assert stored_medicine(value, evidence) == name


def test_the_replaced_medicine_is_the_one_for_the_same_thing_or_the_only_one() -> None:
    two = [("m1", "metformin", "I take metformin for my diabetes"),
           ("m2", "ramipril", "the doctor put me on ramipril for my blood pressure")]
    # the new one is for the blood pressure: the medicine said of it, not the other
    assert which_replaced("amlodipine", "the gp put me on amlodipine for my blood pressure instead", two) == ["m2"]
    # nothing says which of two: neither ends (an ending is decided on evidence)
    assert which_replaced("amlodipine", "the gp put me on amlodipine instead", two) == []
    # the user's only medicine
    assert which_replaced("amlodipine", "on amlodipine now instead", two[1:]) == ["m2"]
    # the user's only medicine is for something else than the new one
    assert which_replaced("atorvastatin", "on atorvastatin for my cholesterol instead", two[:1]) == []
    # a new dose of the same medicine replaces nothing here (its subject does that)
    assert which_replaced("ramipril 10mg", "ramipril 10mg instead now", two[1:]) == []


@pytest.mark.parametrize(("value", "clause", "theirs"), [
    ("candesartan", "the gp has put me on candesartan", False),
    ("thyroid", "My doctor has found that my thyroid is underactive", False),
    ("sertraline 100 mg", "the doctor has raised my sertraline dose to 100 mg", False),
    ("atorvastatin", "my wife takes atorvastatin", True),
    ("warfarin", "my dad took warfarin for years", True),
])
def test_a_doctors_doing_to_the_user_is_the_users_and_a_relatives_medicine_is_not(value: str, clause: str,
                                                                                   theirs: bool) -> None:
    assert (screen(value, clause, "health") == "about_someone_else") is theirs


@pytest.mark.parametrize(("text", "names"), [
    ("the consultant raised my sertraline to 150 mg this week", ["sertraline 150 mg"]),
    ("my ramipril dose went up to 10mg", ["ramipril 10mg"]),
    ("doc lowered the insulin to 8 units at night", ["insulin 8 units"]),
    # a version or a date after a name is no dose where nothing speaks of medicine
    ("we're on Node 22 now at work", []),
    ("now I fly back on March 14 instead", []),
])
def test_a_new_dose_is_read_with_its_medicine(text: str, names: list[str]) -> None:
    assert [m.name for m in medicines_in(text)] == names


def test_a_bare_number_after_a_medicine_is_its_dose() -> None:
    from mnemo.domain.extraction.medicines import medicines_in, without_dose
    # one fact for the medicine, whatever its dose: a new dose replaces the old
    assert without_dose("metformin 500") == without_dose("metformin 1000") == "metformin"
    assert without_dose("type 2") == "type 2"
    said = "the doctor changed my metformin to 1000 in the morning and 500 in the evening"
    assert [m.name for m in medicines_in(said)] == ["metformin 1000"]


@pytest.mark.parametrize(("name", "kind"), [
    ("candesartan 8 mg", "ACE inhibitor or ARB"), ("ramipril", "ACE inhibitor or ARB"),
    ("di losartan", "ACE inhibitor or ARB"), ("amlodipine", "calcium channel blocker"),
    ("rosuvastatin", "cholesterol"), ("apixaban", "blood thinner"), ("metformin", None), ("Jardiance", None),
    ("surgery in April", None), ("nystatin", None),
])
def test_the_kind_of_a_medicine_is_read_from_its_stem(name: str, kind: str | None) -> None:
    assert medicine_kind(name) == kind


@pytest.mark.parametrize(("sentence", "now"), [
    ("Since Monday I take candesartan 8 mg in the morning.", True),
    ("Chemist give mi di losartan now, 50mg, one a day.", True),
    ("the doctor added amlodipine as well", False),
    ("I also take amlodipine now", False),
    ("I took amlodipine for years", False),
    ("Since Monday I take candesartan with food", True),
    ("Heartburn again so I took omeprazole, now fine", False),
])
def test_a_medicine_said_as_the_one_taken_now(sentence: str, now: bool) -> None:
    name = next(w.strip(",.") for w in sentence.split() if medicine_kind(w))
    assert taken_now_alone(name, sentence) is now


@pytest.mark.parametrize(("name", "sentence", "replaces"), [
    # of a kind taken one at a time, said as the user's: it takes the old one's place, "now" said or not
    ("APIXABAN", "THESE APIXABAN TABLETS ARE WEE THINGS, EASIER TO SWALLOW.", True),
    ("Eltroxin", "doctor ne Eltroxin 50 likh diya, wahi le rahi hoon ab", True),
    ("Since", "Since Monday I take candesartan 8 mg in the morning.", False),  # no medicine's name
    ("candesartan", "Since Monday I take candesartan 8 mg in the morning.", True),
    # beside another, once, or of a kind taken two at a time: only said as the one taken now
    ("amlodipine", "the doctor added amlodipine as well", False),
    ("omeprazole", "Heartburn again so I took omeprazole, now fine", False),
    ("mirtazapine", "started mirtazapine at night for sleep", False),
    ("mirtazapine", "I'm on mirtazapine now instead", True),
])
def test_a_new_medicine_said_as_the_users_one_of_its_kind(name: str, sentence: str, replaces: bool) -> None:
    assert replaces_its_kind(name, sentence) is replaces


def test_a_new_medicine_taken_now_replaces_the_stored_ones_of_its_kind_only() -> None:
    stored = [("m1", "ramipril 5 mg", "ramipril 5 mg, in the morning"), ("m2", "metformin", "metformin with food"),
              ("m3", "pon amlodipine fi", "Doctor put mi pon amlodipine fi di pressure")]
    assert same_kind("candesartan 8 mg", stored) == ["m1"]
    assert same_kind("losartan", stored) == ["m1"]  # a calcium channel blocker is taken beside one, not in its place
    assert same_kind("ramipril 10 mg", stored) == []  # a new dose of the same one is no other of its kind
    assert same_kind("Jardiance", stored) == []
    # two of its kind stored: which one it replaces is a guess
    assert same_kind("candesartan", [*stored, ("m4", "lisinopril", "lisinopril")]) == []
    assert stored_medicine("pon amlodipine fi", "Doctor put mi pon amlodipine fi di pressure") == "amlodipine"


@pytest.mark.parametrize(("text", "names"), [
    ("can i take ibuprofen with my sertraline?", ["sertraline"]),
    ("the atorvastatin 20mg I take every night", ["atorvastatin"]),
    ("warfarin, which I have been taking since December", ["warfarin"]),
    ("is my Pixel compatible?", []),  # no medicine's name
    ("I stopped my warfarin", []),  # stopped, not the user's now
    ("my wife's metformin", []),  # someone else's
    ("what foods lower my cholesterol?", []),  # a measurement, not a medicine ("-terol")
    ("my lithium battery died", []),
    ("I finished my amoxicillin yesterday", []),  # over
    ("I lost my ibuprofen somewhere", []),
    ("Ibuprofen is bad for my stomach. Doctor changed it. Paracetamol now.", ["Paracetamol"]),  # said alone, now
    ("Grandma's in hospital. Morphine now.", []),  # someone else's
    ("The dog's hips got worse, the vet changed it. Gabapentin now.", []),
])
def test_a_medicine_said_as_the_users_own(text: str, names: list[str]) -> None:
    assert [m.name for m in own_medicines(text)] == names


def test_a_long_token_is_read_in_linear_time() -> None:
    # read from inside the token, "(which) I take" after a name cost the square of its length (10 s for 20 000 letters)
    import time

    started = time.perf_counter()
    medicines_in("why does this token fail? " + "a" * 20000)
    own_medicines("x" + "\n" * 30000 + "y")  # a run of blank lines was read from each of its lines
    assert time.perf_counter() - started < 1.0
