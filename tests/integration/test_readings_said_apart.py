"""Facts whose parts the user says apart, which the tagger reads as something else: what a doctor forbade ("has
forbidden me the cheese"), the day of an exam said of "it" ("the Goethe B2 exam, it is on 12 March"). The shipped
model, one message each."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.pipeline import LearnedExtractor
from tests.integration.conversation_steps import stored


@pytest.mark.parametrize(("text", "thing"), [
    ("but the cardiologist has forbidden me the cheese in quantity, because of the cholesterol.", "cheese"),
    ("doctor banned me from alcohol for a month", "alcohol"),
])
def test_what_a_doctor_forbade_the_user_is_avoided(extractor: LearnedExtractor, text: str, thing: str) -> None:
    assert any(s.startswith("avoids") and thing in c for s, c in stored(extractor, text).items())


def test_what_a_doctor_forbade_someone_else_is_not_the_users(extractor: LearnedExtractor) -> None:
    assert not any(s.startswith("avoids") for s in stored(extractor, "the doctor forbade my husband salt"))


def test_a_day_said_of_an_exam_as_it_is_the_exams_plan(extractor: LearnedExtractor) -> None:
    # the tagger read the date as a project's deadline
    facts = stored(extractor, "I am preparing for the Goethe B2 exam, it is on 12 March.")
    assert "project_deadline" not in facts
    assert any(c.startswith("User plans: Goethe B2 exam on 12 March") for c in facts.values()), facts
    assert "project_deadline" in stored(extractor, "we launch the app, it is on 12 March")


def test_a_dated_move_is_a_plan_and_no_home_yet(extractor: LearnedExtractor) -> None:
    # the date taken back from "the end of March" left "moving at the end of the 12th of April"; and the tagger read
    # the flat's town as the home today, weeks before the move (the plan makes it the home when its day comes)
    facts = stored(extractor, "also Sam and I are moving at the end of March, no actually, the 12th of April, to a "
                              "flat in Bath, closer to Sam's new job")
    assert "home_location" not in facts
    assert any("Bath" in c and "12th of April" in c and "end of" not in c for c in facts.values()), facts
    assert stored(extractor, "we moved to Bath last week").get("home_location") == "User lives in Bath."


def test_a_labelled_field_is_read_in_its_labels_slot(extractor: LearnedExtractor) -> None:
    # the tagger read "User uses Bitpanda.", "User's job: nurse City." and an answer language of "Languages: ..."
    assert stored(extractor, "Employer: Bitpanda. Start 1 April.").get("job") == "User's job: Bitpanda."
    facts = stored(extractor, "Job: nurse\nCity: Leeds\nLanguages: English, Polish")
    assert facts.get("job") == "User's job: nurse."
    assert {c for s, c in facts.items() if s.startswith("languages_spoken")} == {"User speaks English.",
                                                                                 "User speaks Polish."}
    assert not [s for s in facts if s.startswith(("uses", "answer_language"))]


def test_a_job_read_across_a_lists_lines_keeps_its_own_line(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "About me:\n- Tomas\n- 29\n- Brno, CZ\n- backend developer at Kiwi.com\n- Go, Postgres")
    assert facts.get("job", "").startswith("User's job: backend developer at Kiwi")


@pytest.mark.parametrize(("text", "need"), [
    ("My mother come to visit from Rzeszów on 20 April, for two weeks. She don't eat meat, she is vegetarian",
     "she is vegetarian"),
    ("my mom is coming to visit on may 20, she's diabetic so i need to cook without sugar", "she's diabetic"),
    ("my sis ria is coming to visit jul 12-26, first time in canada! shes vegan so help", "shes vegan"),
])
def test_what_a_visiting_relative_needs_at_the_table_goes_with_the_visit(extractor: LearnedExtractor, text: str,
                                                                          need: str) -> None:
    # a visitor's diet is kept with the visit on the user's calendar (past when its day has gone), never as theirs
    facts = stored(extractor, text)
    assert any(c.startswith("User's calendar:") and need in c for c in facts.values()), facts
    assert not [s for s in facts if s in ("diet", "health") or s.startswith("family_care:")]


@pytest.mark.parametrize(("text", "routine"), [
    ("corro 5k todos los domingos con mi running club, what shoes are good for flat feet?",
     "User's routine: corro 5k todos los domingos con mi running club."),
    ("faço muay thai 3x por semana", "User's routine: faço muay thai 3x por semana."),
])
def test_a_routine_said_in_another_language_is_the_users_routine(extractor: LearnedExtractor, text: str,
                                                                 routine: str) -> None:
    # the tagger read "running club" as a job and "muay" as a favourite
    assert routine in stored(extractor, text).values()
