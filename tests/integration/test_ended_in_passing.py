"""An ending said of a name the user only refers back to ("so I stopped the futsal") retires the stored fact
it names, and writes nothing where no stored fact has that name (the learned extractor, the local home)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo, build_local
from mnemo.clock import ManualClock
from mnemo.domain.models import Category, SourceKind, Status
from mnemo.services.writing import NewFact
from mnemo.settings import Settings
from tests.integration.conversation_steps import say_in_one_session, say_next_day

TENANT, USER = "t-passing", "u-passing"
START = datetime(2026, 3, 1, 9, tzinfo=UTC)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    clock = ManualClock(START)
    built = build_local(Settings(data_dir=tmp_path, extractor="learned"), clock=clock)
    yield built
    built.close()


def _said(service: Mnemo, conversation: str, text: str) -> None:
    say_next_day(service, TENANT, USER, conversation, text)


def _live(service: Mnemo) -> list[str]:
    now = service.ports.clock.now()
    return [m.content for m in service.ports.memories.all_for_user(TENANT, USER) if m.is_live(now)]


def _remember(service: Mnemo, content: str, subject: str, category: Category, polarity: bool = True) -> None:
    service.writer.write(TENANT, USER, [NewFact(content=content, category=category, subject=subject,
                                                confidence=0.95, source=SourceKind.EXTRACTED, occurred_at=START,
                                                polarity=polarity)])


def test_a_pastime_stopped_in_passing_is_retired(service: Mnemo) -> None:
    _remember(service, "User's hobby: plays futsal with friends from work.", "hobby:futsal", Category.PREFERENCE)
    _said(service, "c2", "Also my knee is bad now, so I stopped the futsal, the doctor said maybe forever.")
    assert not [c for c in _live(service) if "futsal" in c.lower() and "no longer" not in c.lower()]
    retired = [m for m in service.ports.memories.all_for_user(TENANT, USER) if m.subject == "hobby:futsal"
               and m.polarity]
    assert [m.status for m in retired] == [Status.SUPERSEDED]


def test_a_medicine_the_doctor_switched_the_user_off_is_retired(service: Mnemo) -> None:
    _remember(service, "User's health: takes warfarin.", "health:warfarin", Category.CONSTRAINT)
    _said(service, "c2", "The doctor has switched me off the warfarin, which means fewer blood tests, thank heavens.")
    assert not [c for c in _live(service) if "warfarin" in c.lower() and "no longer" not in c.lower()]


def test_an_ending_that_names_nothing_stored_writes_nothing(service: Mnemo) -> None:
    _remember(service, "User's hobby: plays futsal with friends from work.", "hobby:futsal", Category.PREFERENCE)
    _said(service, "c2", "so I stopped the car at the lights and called her back")
    assert not [c for c in _live(service) if "car" in c.lower()]
    assert [c for c in _live(service) if "futsal" in c.lower()]


def test_someone_elses_ending_retires_nothing_of_the_users(service: Mnemo) -> None:
    _remember(service, "User's routine: smoking after lunch.", "habit:smok", Category.PROCEDURAL)
    _said(service, "c2", "my brother quit smoking last year, good for him")
    assert [c for c in _live(service) if "smoking" in c.lower()]


def test_a_thing_owned_is_not_retired_by_stopping_it(service: Mnemo) -> None:
    _remember(service, "User owns a car: a red Honda Civic.", "owns:car", Category.BIOGRAPHICAL)
    _said(service, "c2", "so I stopped the car at the lights and called her back")
    assert "User owns a car: a red Honda Civic." in _live(service)


def test_a_word_of_a_facts_statement_is_not_its_value(service: Mnemo) -> None:
    # "subscription" is in the stored statement, but the value it states is Spotify
    _remember(service, "User uses a Spotify subscription.", "uses:spotify", Category.PREFERENCE)
    _said(service, "c2", "I stopped the subscription to the gym, too pricey")
    assert "User uses a Spotify subscription." in _live(service)


def test_an_ending_the_user_asks_to_remember_is_kept_where_nothing_is_stored(service: Mnemo) -> None:
    _said(service, "c2", "please remember I've given up the painting")
    assert [c for c in _live(service) if "painting" in c.lower()]


def test_an_ending_of_a_name_retires_a_long_fact_that_names_it_among_other_words(service: Mnemo) -> None:
    # "no longer does bowls" and a fact that says where and when the user plays are far apart as vectors (0.47);
    # the name is the evidence
    _remember(service, "User's routine: lawn bowls at the Westfield green every Wednesday afternoon.",
              "habit:lawn_bowl_westfield", Category.PROCEDURAL)
    _said(service, "c2", "I have, sadly, given up bowls; my knees make the bending difficult.")
    assert not [c for c in _live(service) if "bowls" in c.lower() and "no longer" not in c.lower()]


def test_a_medicine_the_user_was_moved_from_is_retired(service: Mnemo) -> None:
    _remember(service, "User's health: takes methotrexate weekly.", "health:methotrexat", Category.CONSTRAINT)
    _said(service, "c2", "The rheumatologist changed me from methotrexate to a weekly injection, fingers crossed.")
    assert not [c for c in _live(service) if "methotrexate" in c.lower() and "no longer" not in c.lower()]


SWITCH = "We migrated the shop from Square Online Store to Shopify, how do I set up shipping zones?"


def test_a_tool_left_by_its_longer_name_retires_the_one_stored_by_its_maker(service: Mnemo) -> None:
    # the tagger marks Shopify itself; the switch read around it still ends the tool left, stored shorter
    _remember(service, "User uses Square.", "uses:squar", Category.PREFERENCE)
    say_next_day(service, TENANT, USER, "c2", SWITCH)
    live = _live(service)
    assert any("Shopify" in c for c in live)
    assert not [c for c in live if "Square" in c and "no longer" not in c.lower()]


def test_a_tool_that_only_shares_a_word_with_the_one_left_stays(service: Mnemo) -> None:
    _remember(service, "User uses Square Terminal.", "uses:squar_termin", Category.PREFERENCE)
    say_next_day(service, TENANT, USER, "c2", SWITCH)
    assert "User uses Square Terminal." in _live(service)


def test_a_supplement_stopped_without_talk_of_doctors_is_retired(service: Mnemo) -> None:
    # "melatonin" has no medicine's stem and the message speaks of no doctor: "User's health: melatonin 3mg." stayed
    _said(service, "c1", "i take melatonin 3mg some nights when my partner does the night feed")
    _said(service, "c2", "i stopped the melatonin, made me groggy for driving in the morning. now just nap when i can")
    assert not [c for c in _live(service) if "3mg" in c]


def test_a_routine_stopped_in_other_words_is_retired(service: Mnemo) -> None:
    # "User no longer: cycling." stood beside the routine it ends: the two are far apart as vectors
    _said(service, "c1", "I cycle to work every day even with the rain, 25 minutes, it is the only sport I do.")
    _said(service, "c2", "ah, and I stopped cycling, from the new flat it is too far with all the stuff, now I "
                         "drive the van every day")
    assert not [c for c in _live(service) if "cycle to work" in c]
    assert [c for c in _live(service) if "van" in c]


def test_a_stopped_routine_leaves_another_of_its_word_with_more_said(service: Mnemo) -> None:
    _remember(service, "User's routine: walks the dog every evening.", "habit:walk_dog_every", Category.PROCEDURAL)
    _remember(service, "User's routine: walks to work.", "habit:walk_work", Category.PROCEDURAL)
    _remember(service, "User no longer: walking to work.", "habit:walk_work", Category.PROCEDURAL, polarity=False)
    live = _live(service)
    assert [c for c in live if "walks the dog" in c]
    assert not [c for c in live if c == "User's routine: walks to work."]


def test_quitting_the_workplace_ends_the_job(service: Mnemo) -> None:
    # read as "User no longer does juice bar." (a pastime), it retired nothing and the job stayed
    _said(service, "c1", "i work at a juice bar in town, its ok")
    _said(service, "c2", "quit the juice bar, manager was sooo rude. looking for something else now")
    assert not [c for c in _live(service) if c.startswith("User's job")]


def test_a_plan_moved_to_another_date_is_held_at_the_new_one(service: Mnemo) -> None:
    # the tagger read the move as a deadline; the plan kept October
    _said(service, "c1", "We are planning a second shop in Baner, opening in October if all goes well.")
    _said(service, "c2", "Baner opening is delayed, landlord issues. Now it will be January next year.")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert not [c for c in plans if "October" in c]
    assert [c for c in plans if "January" in c]


def test_a_plan_moved_said_of_it_with_the_date_after_a_pause_is_held_at_the_new_one(service: Mnemo) -> None:
    _said(service, "c1", "Quit driving the van. Eyes are going. Cataracts. Surgery april 8.")
    _said(service, "c2", "Surgery got moved. May 4 now. Surgeon was sick.")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert plans == ["User plans: Surgery, now May 4 (for 2026-05-04)."]


def test_a_day_taken_back_in_the_next_message_moves_the_plan_held_for_it(service: Mnemo) -> None:
    _said(service, "c1", "we're flying to Lisbon on the 16th of March for a wedding")
    _said(service, "c2", "actually no its the 23rd not the 16th, i read the ticket wrong, sorry")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert plans == ["User plans: flying to Lisbon for a wedding, now the 23rd (for 2026-03-23)."]


def test_a_weekday_taken_back_as_a_correction_moves_the_plan_said_last_for_it(service: Mnemo) -> None:
    _said(service, "c1", "book club is on Wednesday at Tanya's")
    _said(service, "c2", "my driving test is on Wednesday, so nervous")
    _said(service, "c3", "sorry i meant thursday nt wednesday for the test")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert [c for c in plans if "test" in c and "2026-03-05" in c]
    assert not [c for c in plans if "driving test" in c and "2026-03-04" in c]
    assert [c for c in plans if "Tanya" in c and "2026-03-04" in c]  # said before, not last


def test_a_time_taken_back_in_the_next_message_holds_the_plan_at_the_time_meant(service: Mnemo) -> None:
    _said(service, "c1", "I have a dentist appointment on 12 March at 2:15 pm at the clinic.")
    _said(service, "c2", "Correction to my previous message: the appointment is at 3:15 pm, not 2:15 pm. I misread it.")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert plans == [
        "User plans: dentist appointment on 12 March at 3:15 pm at the clinic (for 2026-03-12)."]


@pytest.mark.parametrize("said", [
    "sorry, the team call is at 3pm not 2:15 pm",  # another plan named
    "sorry I mixed up, my sister's flight lands at 4:15 pm, not 2:15 pm",  # someone else's time
    "the dentist called: is 3:15 pm not 2:15 pm ok for you? I said no",  # asked
    "dentist wanted 3:15 pm, not 2:15 pm, but I refused so still 2:15",  # refused
])
def test_a_time_taken_back_of_another_plan_asked_or_refused_moves_no_plan(service: Mnemo, said: str) -> None:
    _said(service, "c1", "I have a dentist appointment on 12 March at 2:15 pm at the clinic.")
    _said(service, "c2", said)
    live = _live(service)
    assert "User plans: dentist appointment on 12 March at 2:15 pm at the clinic (for 2026-03-12)." in live
    assert not [c for c in live if "at the clinic" in c and "2:15" not in c]


def test_a_time_taken_back_keeps_the_stored_half_of_the_day(service: Mnemo) -> None:
    _said(service, "c1", "I have a dentist appointment on 12 March at 2:15 pm at the clinic.")
    _said(service, "c2", "oops, the dentist appointment is at 3:15 not 2:15")
    clinic = [c for c in _live(service) if "at the clinic" in c]
    assert clinic == ["User plans: dentist appointment on 12 March at 3:15 pm at the clinic (for 2026-03-12)."]


def test_a_time_chosen_over_another_moves_no_plan(service: Mnemo) -> None:
    _said(service, "c1", "I have a dentist appointment on 12 March at 2:15 pm at the clinic.")
    _said(service, "c2", "For the team call I can do 4 pm, not 2:15 pm.")
    assert [c for c in _live(service) if "dentist" in c] == [
        "User plans: dentist appointment on 12 March at 2:15 pm at the clinic (for 2026-03-12)."]


def test_a_day_chosen_over_another_moves_no_plan(service: Mnemo) -> None:
    _said(service, "c1", "Dentist appointment on the 14th of March at 10.")
    _said(service, "c2", "For the team dinner I can do the 12th, not the 14th.")
    assert [c for c in _live(service) if "Dentist" in c] == [
        "User plans: Dentist appointment on the 14th of March at 10 (for 2026-03-14)."]


def test_a_plan_taken_back_in_its_own_words_leaves_the_old_day(service: Mnemo) -> None:
    _said(service, "c1", "My Boki exam is in June, I study every evening")
    _said(service, "c2", "I am sorry, I made a mistake: the Boki exam is not in June, it is on 24 May.")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert plans == ["User plans: Boki exam is on 24 May (for 2026-05-24)."]


def test_a_plan_said_to_be_off_by_its_name_alone_ends(service: Mnemo) -> None:
    # the tagger read no plan in "And Valencia is cancelled too"
    _said(service, "c1", "Valencia booked! 3. to 17. August")
    _said(service, "c2", "And Valencia is cancelled too, Kerem's father is sick in Izmir, we fly to Izmir 2. August "
                         "instead, for 3 weeks")
    plans = [c for c in _live(service) if c.startswith("User plans")]
    assert not [c for c in plans if "Valencia" in c]
    assert [c for c in plans if "Izmir" in c]


def test_a_new_home_read_doubtfully_in_a_message_that_says_a_move_replaces_the_old(service: Mnemo) -> None:
    # the tagger was 0.66 sure of rusholme, and the old home outranked it
    _said(service, "c1", "hiii im mika, first yr at uni, living in halls in fallowfield rn")
    _said(service, "c2", "MOVED OUT OF HALLS!! me n jas got a house in rusholme w 2 other girls, theres a garden")
    homes = [c for c in _live(service) if c.startswith("User lives in")]
    assert homes == ["User lives in rusholme."]


@pytest.mark.parametrize(("job", "given_up"), [
    ("I run a small bakery in Hebden Bridge", "I quit running, my knees cant take it anymore"),
    ("I'm a swimming coach at the leisure centre", "gave up swimming myself, shoulder is wrecked"),
])
def test_giving_up_a_pastime_that_shares_a_word_with_the_job_leaves_the_job(service: Mnemo, job: str,
                                                                            given_up: str) -> None:
    _said(service, "c1", job)
    _said(service, "c2", given_up)
    assert [c for c in _live(service) if c.startswith("User's job")]


def test_stopping_a_thing_in_passing_leaves_a_condition_of_the_same_word(service: Mnemo) -> None:
    # "car" named the condition: "User's health: car sick." was retired
    _remember(service, "User's health: car sick on long drives.", "health:car_sick", Category.CONSTRAINT)
    _said(service, "c2", "so I stopped the car at the services and had a coffee")
    assert [c for c in _live(service) if c.startswith("User's health") and "car sick" in c]


def test_someone_elses_date_moving_leaves_the_users_plans(service: Mnemo) -> None:
    _said(service, "c1", "I'm going to visit my mum in Leeds in April")
    _said(service, "c2", "my mum's dentist appointment was pushed back to next Friday, she's annoyed")
    assert [c for c in _live(service) if c.startswith("User plans") and "April" in c]


def test_a_workplace_the_user_says_they_left_ends_the_job_there(service: Mnemo) -> None:
    # the tagger read the news as an event only, and the cashier's job at Tesco stayed the user's
    _said(service, "c1", "I work as a cashier at Tesco in Leeds.")
    _said(service, "c2", "I quit my job at Tesco yesterday!!! freedom")
    assert not [c for c in _live(service) if "tesco" in c.lower() and c.startswith("User's job")]


def test_a_workplace_left_long_ago_leaves_the_job_now(service: Mnemo) -> None:
    _said(service, "c1", "I'm a nurse at St James's hospital.")
    _said(service, "c2", "I resigned from Shoprite years ago, best decision")
    assert "User's job: nurse at St James's hospital." in _live(service)


@pytest.mark.parametrize("text", [
    "Oh and the lactose thing, it was wrong! The new test says I am fine with lactose, the doctor does not know what.",
    "good news, i can have lactose again!!",
])
def test_an_intolerance_the_user_is_fine_with_after_all_is_retired(service: Mnemo, text: str) -> None:
    _said(service, "c1", "the doctor told me I am lactose intolerant. So no more milk for me :(")
    assert [c for c in _live(service) if "lactose" in c.lower()]
    _said(service, "c2", text)
    assert not [c for c in _live(service) if "lactose" in c.lower() and " not " not in c.lower()]
    # and nothing is made of it where nothing was stored: no diet, no allergy
    assert not [c for c in _live(service) if "diet" in c.lower()]


def test_being_fine_with_a_thing_stores_nothing_where_no_allergy_was_stored(service: Mnemo) -> None:
    _said(service, "c1", "turns out im fine with gluten after all")
    assert not [c for c in _live(service) if "gluten" in c.lower()]


@pytest.mark.parametrize("text", [
    "im fine with eggs in cakes, just not scrambled or boiled",  # one form of it: the allergy stands
    "funny thing is I could eat eggs fine when I was younger",  # "could" of the past
])
def test_an_allergy_the_user_tolerates_only_in_a_form_or_did_once_stays(service: Mnemo, text: str) -> None:
    _said(service, "c1", "I'm allergic to eggs")
    _said(service, "c2", text)
    assert "User is allergic to eggs." in _live(service)


def test_a_medicine_stopped_in_passing_leaves_an_allergy_to_it(service: Mnemo) -> None:
    # stopping a medicine given by mistake ends no allergy to it: only what the user is fine with after all does
    _said(service, "c1", "I'm allergic to penicillin and amoxicillin")
    _said(service, "c2", "they gave me amoxicillin by mistake in A&E, so the doctor stopped the amoxicillin "
                         "straight away")
    assert "User is allergic to amoxicillin." in _live(service)


def test_a_family_date_moved_by_the_relative_moves_the_stored_plan(service: Mnemo) -> None:
    _said(service, "c1", "alright so my daughter Kayla is getting married October 17th out at a venue in Boerne")
    assert [c for c in _live(service) if "October 17th" in c]
    _said(service, "c2", "so Kayla and her fiancé moved the wedding up to September 26th because the venue had a "
                         "cancellation")
    live = _live(service)
    assert not [c for c in live if "October 17th" in c]
    assert [c for c in live if "September 26th" in c and "Kayla" in c]


def test_a_medicine_the_doctor_gave_another_one_for_is_retired(service: Mnemo) -> None:
    _said(service, "c1", "Also doctor find high blood pressure. I must take ramipril, one tablet in morning")
    assert [c for c in _live(service) if "ramipril" in c.lower()]
    _said(service, "c2", "The ramipril make me cough all night, doctor give me other one now, amlodipine")
    live = _live(service)
    assert not [c for c in live if "ramipril" in c.lower() and "no longer" not in c.lower()]
    assert [c for c in live if "amlodipine" in c.lower()]


def test_being_fine_with_a_thing_leaves_a_liking_of_it(service: Mnemo) -> None:
    _said(service, "c1", "I love cats")
    assert "User likes cats." in _live(service)
    _said(service, "c2", "and the allergist says i'm fine with cats")
    assert "User likes cats." in _live(service)


def test_a_diet_said_to_be_over_is_retired(service: Mnemo) -> None:
    _said(service, "c1", "I'm doing low carb now, my glucose was a bit high")
    assert [c for c in _live(service) if "low carb" in c.lower()]
    _said(service, "c2", "the low carb thing is over btw, exams came back normal, doctor said eat normal again")
    assert not [c for c in _live(service) if "low carb" in c.lower() and "no longer" not in c.lower()]


def test_a_thing_that_is_over_there_or_done_by_friday_ends_nothing(service: Mnemo) -> None:
    _remember(service, "User's hobby: pottery.", "hobby:pottery", Category.PREFERENCE)
    _said(service, "c2", "the pottery class is done by friday so I can pick up the bowls")
    _said(service, "c3", "my pottery stuff is over there on the shelf")
    assert "User's hobby: pottery." in _live(service)


def test_a_plan_called_off_by_its_place_is_retired_and_no_home(service: Mnemo) -> None:
    _said(service, "c1", "trying to get fit for the Brighton Half in April, the 12th")
    assert [c for c in _live(service) if "Brighton" in c]
    _said(service, "c2", "Brighton is off for me, physio said no running for 8 weeks. gutted.")
    live = _live(service)
    assert not [c for c in live if "Brighton" in c and "no longer" not in c.lower()]


def test_a_new_inhaler_the_doctor_gave_replaces_the_one_taken(service: Mnemo) -> None:
    _said(service, "c1", "I take Ventolin for my asthma, two puffs when I need it")
    assert [c for c in _live(service) if "ventolin" in c.lower()]
    _said(service, "c2", "doctor in Singapore give me new inhaler, Symbicort, morning and night. he said use only "
                         "this one now")
    live = _live(service)
    assert not [c for c in live if "ventolin" in c.lower() and "no longer" not in c.lower()]
    assert [c for c in live if "symbicort" in c.lower()]
    assert not [c for c in live if "Singapore" in c]


def _said_in_one_session(service: Mnemo, *texts: str) -> None:
    """The texts as the turns of one session, read by one extraction job."""
    say_in_one_session(service, TENANT, USER, "c-one", list(texts))


def test_a_time_taken_back_in_the_same_session_holds_the_plan_at_the_time_meant(service: Mnemo) -> None:
    _said_in_one_session(service, "I have a dentist appointment on 12 March at 2:15 pm at the clinic.",
                         "Correction to my previous message: the appointment is at 3:15 pm, not 2:15 pm.")
    clinic = [c for c in _live(service) if "at the clinic" in c]
    assert clinic == ["User plans: dentist appointment on 12 March at 3:15 pm at the clinic (for 2026-03-12)."]


def test_a_day_taken_back_in_the_same_session_holds_the_plan_at_the_day_meant(service: Mnemo) -> None:
    _said_in_one_session(service, "we're flying to Lisbon on the 16th of March for a wedding",
                         "actually no its the 23rd not the 16th, i read the ticket wrong, sorry")
    plans = [c for c in _live(service) if c.startswith("User plans") and "Lisbon" in c]
    assert plans == ["User plans: flying to Lisbon for a wedding, now the 23rd (for 2026-03-23)."]


def test_a_plan_called_off_in_the_same_session_is_not_written(service: Mnemo) -> None:
    _said_in_one_session(service, "we're flying to Valencia on the 3rd of August for the festival",
                         "ugh, and Valencia is cancelled, the festival got scrapped")
    assert not [c for c in _live(service) if c.startswith("User plans") and "Valencia" in c]


def test_a_plan_moved_in_the_same_session_is_held_at_the_new_date(service: Mnemo) -> None:
    _said_in_one_session(service, "We are planning a second shop in Baner, opening in October if all goes well.",
                         "Baner opening is delayed, landlord issues. Now it will be January next year.")
    plans = [c for c in _live(service) if c.startswith("User plans") and "opening" in c]
    assert not [c for c in plans if "October" in c]
    assert [c for c in plans if "January" in c]


def test_a_bare_time_correction_moves_the_one_plan_at_that_time_to_the_nearest_half_of_the_day(service: Mnemo) -> None:
    _said(service, "c1", "physio appointment on 12 March at 11:30am at the clinic")
    _said(service, "c2", "oops, it's 1:30 not 11:30")
    clinic = [c for c in _live(service) if "at the clinic" in c]
    assert clinic == ["User plans: physio appointment on 12 March at 1:30 pm at the clinic (for 2026-03-12)."]


@pytest.mark.parametrize("said", ["actually can we do thursday not wednesday for the call?",
                                  "sorry, the team call is thursday not wednesday"])
def test_a_weekday_asked_or_said_of_another_plan_moves_no_plan(service: Mnemo, said: str) -> None:
    _said(service, "c1", "my driving test is on Wednesday, so nervous")
    _said(service, "c2", said)
    assert [c for c in _live(service) if "driving test" in c and "2026-03-04" in c]


def test_a_weekday_meant_before_the_one_taken_back_is_the_next_one_not_one_gone(service: Mnemo) -> None:
    _said(service, "c1", "my driving test is on Friday, so nervous")  # 2026-03-06, said on Monday 2 March
    _said(service, "c2", "oops, Monday not Friday for the test")  # said on Tuesday 3 March: Monday 9 March
    plans = [c for c in _live(service) if c.startswith("User plans") and "test" in c]
    assert [c for c in plans if "2026-03-09" in c]
    assert not [c for c in plans if "2026-03-02" in c or "2026-03-06" in c]
