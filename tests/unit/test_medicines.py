"""Medicines the user takes: how a message names one, which one a switch leaves behind
(domain/extraction/medicines.py), and whose medicine it is."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.medicines import (
    ended_medicines,
    medicines_in,
)
from mnemo.domain.extraction.screen import screen


@pytest.mark.parametrize(("text", "names"), [
    ("my gp put me on ramipril last week", ["ramipril"]),
    ("the nurse started me on sertraline 50mg", ["sertraline 50mg"]),
    ("i take losartan every morning", ["losartan"]),
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
