"""Values the learned extractor must not make of what the tagger read (the shipped model, one message each)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.domain.models import Message
from tests.integration.conversation_steps import stored


def test_a_height_is_no_age(extractor: LearnedExtractor) -> None:
    # the tagger reads "5'11" as an age: "User is 5'11 years old." was stored beside the diet
    facts = stored(extractor, "i'm 5'11 and vegan")
    assert "age" not in facts
    assert facts.get("diet") == "User's diet: vegan."
    assert stored(extractor, "im 41 btw").get("age") == "User is 41 years old."


@pytest.mark.parametrize("text", ["I grew up in Kumasi and came over when I was 19.",
                                  "I'm a dabbawala in Mumbai, been doing it since I was 18",
                                  "retired as of Friday!! 41 years at the post office",
                                  "I've been a wheelchair user since a car accident at 22.",
                                  "I started coding at 14 and never stopped",
                                  "I taught at a primary school for thirty-four years before retiring",
                                  "got married at 25, divorced at 30",
                                  "i quit smoking at 40 and at 41 i ran my first marathon",
                                  # an age still to come
                                  "I want to retire at 55", "I'll be a grandad at 48 lol"])
def test_an_age_once_or_a_span_of_years_is_no_age(extractor: LearnedExtractor, text: str) -> None:
    # the tagger reads the number as the user's age: "User is 19 years old."
    assert "age" not in stored(extractor, text)


@pytest.mark.parametrize("text", ["I still hurl with the junior B team, God help me at 52.",
                                  "still running marathons at 61 lol", "me, 34, nurse, leeds",
                                  # what happened is told first, then the age now
                                  "moved here last year and at 28 I'm the oldest in my cohort lol",
                                  "Went back to college last fall, at 52 I feel ancient"])
def test_an_age_the_user_is_now_stays(extractor: LearnedExtractor, text: str) -> None:
    assert "age" in stored(extractor, text)


def test_an_age_is_never_ended_and_one_denied_is_no_age(extractor: LearnedExtractor) -> None:
    # the divorce's "ending" made "User is not 41 years old."; "not 30 yet" made "User is 30 years old."
    assert stored(extractor, "divorced at 30, now 41 and dating again lol").get("age") == "User is 41 years old."
    assert "age" not in stored(extractor, "i'm not 30 yet lol")
    assert stored(extractor, "I'm not 40, I'm 39!").get("age") == "User is 39 years old."
    assert stored(extractor, "wait I'm not 28 I'm 29 lol time flies").get("age") == "User is 29 years old."
    assert "age" not in stored(extractor, "I'm not even 30 yet")


def test_a_constraint_buried_in_a_chatty_message_is_read_in_its_own_sentence(extractor: LearnedExtractor) -> None:
    # read whole, the message gave the family and no allergy: a constraint lost in a long message's context
    facts = stored(extractor, "ok that worked, thanks. random but im allergic to sesame and my dad keeps putting "
                              "it on everything which is annoying. my cousin is keto and loves it lol")
    assert "User is allergic to sesame." in facts.values()
    assert "User's family: dad." in facts.values()
    # a sentence read alone decides nothing but constraints: no name out of "it's Lyumjev."
    facts = stored(extractor, "the pump is new. it's Lyumjev. no wait. Fiasp.")
    assert not any(subject.startswith("name") for subject in facts)


def _said(extractor: LearnedExtractor, text: str) -> set[str]:
    message = Message(role="user", content=text, message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    return {c.content.lower() for c in extractor.extract([message]).accepted}


def test_a_new_diet_said_in_its_own_sentence_after_the_old_one_ended_is_read(extractor: LearnedExtractor) -> None:
    # read whole, the message gave only the ending of the old diet: the diet that replaces it was lost
    assert _said(extractor, "quick update, im not vegan anymore, the doc told me to eat eggs again. so vegetarian "
                            "now.") == {"user no longer follows this diet: vegan.", "user's diet: vegetarian."}
    # someone else's diet in the next sentence stays theirs
    assert _said(extractor, "im not vegan anymore. my flatmate is doing keto lol") == {
        "user no longer follows this diet: vegan."}


def test_one_fact_found_twice_in_a_message_is_one_memory(extractor: LearnedExtractor) -> None:
    # the tagger's negated span and the switch read around it both ended glasgow: two memories of one fact
    message = Message(role="user", content="moved from glasgow to paisley last month, commute is wors but rent is half",
                      message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    contents = [c.content for c in extractor.extract([message]).accepted]
    assert sorted(contents) == ["User lives in paisley.", "User no longer lives in glasgow."]


def test_a_dated_plan_lost_in_a_terse_message_is_read_in_its_own_sentence(extractor: LearnedExtractor) -> None:
    # read whole, three terse sentences gave no plan at all; the flight's sentence read alone is one, and it
    # keeps the user's words for the day beside the anchored date
    facts = stored(extractor, "Lisbon based. Flight LIS-GRU on 5 Dec. aisle always")
    assert "User plans: Flight LIS-GRU on 5 Dec (for 2026-12-05)." in facts.values()


@pytest.mark.parametrize(("text", "kept", "gone"), [
    ("I use Waze instead of Google Maps", "User uses Waze instead of Google Maps.", "User no longer uses Google Maps."),
    ("I use WeChat for everything, not WhatsApp.", "User uses WeChat for everything.", "User no longer uses WhatsApp."),
])
def test_a_value_set_against_another_is_the_one_the_user_does_not_have(extractor: LearnedExtractor, text: str,
                                                                       kept: str, gone: str) -> None:
    # the polarity head read both as used: "User uses Google Maps." beside Waze
    message = Message(role="user", content=text, message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    facts = {c.content: c.polarity for c in extractor.extract([message]).accepted}
    assert facts == {kept: True, gone: False}


@pytest.mark.parametrize(("text", "gone"), [
    ("my cat died this morning 😭😭", "User no longer has the pet: cat."),
    ("our old dog Rex passed away in August", "User no longer has the pet: old dog Rex."),
    ("my mum passed in the autumn so it's just me and dad now", "User's family no longer includes: mum."),
])
def test_a_pet_or_a_relative_that_died_is_no_longer_in_the_users_life(extractor: LearnedExtractor, text: str,
                                                                       gone: str) -> None:
    # the polarity head read "my cat died" as the user having a cat
    message = Message(role="user", content=text, message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    facts = {c.content: c.polarity for c in extractor.extract([message]).accepted}
    assert facts.get(gone) is False


def test_an_event_that_happened_to_a_relative_is_said_as_theirs(extractor: LearnedExtractor) -> None:
    # "User passed away in march." was stored of "my dad passed away in march"
    message = Message(role="user", content="my dad passed away in march", message_id="m1",
                      created_at=datetime(2026, 5, 1, tzinfo=UTC))
    contents = [c.content for c in extractor.extract([message]).accepted]
    assert "User's dad passed away in march (on 2026-03)." in contents
    assert not any(c.startswith("User passed") for c in contents)


def test_an_ending_in_passing_at_a_relatives_home_keeps_the_relative(extractor: LearnedExtractor) -> None:
    # "User's family no longer includes: mum." was stored of the cycling that stopped
    message = Message(role="user", content="I stopped cycling to my mum's, it's too far", message_id="m1",
                      created_at=datetime(2026, 5, 1, tzinfo=UTC))
    facts = {c.content: c.polarity for c in extractor.extract([message]).accepted}
    assert "User's family no longer includes: mum." not in facts
    # what did end is read, where the tagger's span ends or not
    assert [polarity for content, polarity in facts.items() if content.startswith("User no longer: cycling")] == [
        False]


def test_a_tool_switched_to_in_passing_is_the_users_and_ends_the_one_left(extractor: LearnedExtractor) -> None:
    # the tagger marked nothing here: the new tool was never learned and the old one stayed the user's
    message = Message(role="user", content="we've shifted our books from QuickBooks to Xero, the accountant wanted "
                      "it. how to do a credit note in Xero?", message_id="m1",
                      created_at=datetime(2026, 5, 1, tzinfo=UTC))
    found = extractor.extract([message]).accepted
    assert [c.content for c in found if c.polarity] == ["User uses Xero."]
    # read from the switch (written only where it retires) or marked by the tagger itself (a retraction of its own)
    assert [c.content for c in found if not c.polarity] == ["User no longer uses QuickBooks."]


def test_a_medicine_a_doctor_started_the_user_on_is_their_health(extractor: LearnedExtractor) -> None:
    # the tagger marked nothing in either: the medicine was never stored
    assert "User's health: ramipril 5mg." in stored(extractor, "the GP put me on ramipril 5mg last week, is "
                                                               "ibuprofen ok with it?").values()
    said = "quick q. consultant has started me on metformin 500mg with breakfast. can i still have porridge?"
    assert "User's health: metformin 500mg." in stored(extractor, said).values()


def test_a_diet_named_before_the_word_diet_is_the_users_diet(extractor: LearnedExtractor) -> None:
    # the tagger marked nothing: the user's diet was never stored
    facts = stored(extractor, "lol so I'm on a pescatarian diet now, the kids think it's hilarious. fish pie ideas?")
    assert facts.get("diet") == "User's diet: pescatarian."


def test_a_job_is_the_users_whole_phrase_not_the_piece_the_tagger_marked(extractor: LearnedExtractor) -> None:
    # the tagger marked "bookkeeping for small charities around Leeds": that they are freelance was lost
    facts = stored(extractor, "so I left the agency, I'm freelance now doing bookkeeping for small charities "
                              "around Leeds")
    assert facts.get("job") == "User's job: freelance now doing bookkeeping for small charities around Leeds."


def test_what_the_user_does_for_a_living_is_their_job_not_a_hobby(extractor: LearnedExtractor) -> None:
    # the tagger reads it as a hobby: "User's hobby: yacht deliveries for a living."
    facts = stored(extractor, "I do yacht deliveries for a living")
    assert facts.get("job") == "User's job: yacht deliveries."
    assert not any(subject.startswith("hobby") for subject in facts)


def test_a_trade_done_for_a_named_employer_is_the_job_not_a_routine(extractor: LearnedExtractor) -> None:
    # the tagger reads it as a routine: "User's routine: drive for Bring, local delivery with a van."
    facts = stored(extractor, "Good news and bad news. I stop the long distance. Now I drive for Bring, local "
                              "delivery with a van, I am home every night.")
    assert facts.get("job") == "User's job: drive for Bring, local delivery with a van."


@pytest.mark.parametrize("text", ["on the bright side my supervisor, Karin, finally agreed to the field trip",
                                  "Femke passed her exams, she starts at the hospital in september",
                                  "my new charge nurse is filipina too haha small world"])
def test_a_name_the_user_gives_someone_else_is_not_the_users_name(extractor: LearnedExtractor, text: str) -> None:
    # the tagger reads each as the user's name: "User's name is Karin."
    assert "name" not in stored(extractor, text)


def test_a_language_is_no_place_to_live(extractor: LearnedExtractor) -> None:
    # the tagger reads the language as where the user lives: "User lives in tagalog."
    facts = stored(extractor, "lookin for a catholic church near yonge n eglinton, english or tagalog mass")
    assert "home_location" not in facts  # nor the place the church is looked for near
    assert stored(extractor, "I live near Leeds with my wife").get("home_location") == "User lives in Leeds."


def test_a_terse_list_of_technologies_is_the_whole_stack(extractor: LearnedExtractor) -> None:
    # the tagger marks "postgres" alone of the list
    assert stored(extractor, "kai. backend @ fernwerk. go, postgres, k8s.").get("project_stack") == (
        "User's project uses go, postgres, k8s.")
    # and reads an item of the list as the user's job: "User's job: k8s."
    facts = stored(extractor, "new job stack: rust, kafka, k8s. no go at all. ramping up")
    assert facts.get("project_stack") == "User's project uses rust, kafka, k8s."
    assert "job" not in facts


def test_an_employer_after_an_at_sign_is_the_job(extractor: LearnedExtractor) -> None:
    # the tagger read "@ stripe" as nothing, or as the stack: "User's project uses stripe."
    facts = stored(extractor, "left fernwerk. now @ kessel, payments infra.")
    assert facts.get("job") == "User's job: kessel."


def test_the_shift_a_user_works_is_one_routine_a_new_shift_replaces(extractor: LearnedExtractor) -> None:
    # the tagger read nothing of "workin nights", and "just got off shift" as "User's health no longer: shift."
    before = stored(extractor, "hi!! joyce here 29 RN from cebu, workin nights in dubai. just got off shift lol")
    after = stored(extractor, "and no more nights there, day shift 7a-7p yay")
    shift = [subject for subject in before if subject.startswith("habit")]
    assert [before[s] for s in shift] == ["User's routine: works nights."]
    assert after.get(shift[0]) == "User's routine: works day shift, 7a-7p."
    assert not any(subject.startswith("health") for subject in before)


def test_a_shift_said_with_its_article_or_its_hours_is_the_one_shift(extractor: LearnedExtractor) -> None:
    # the tagger's routine that opens with the shift, "the" and all, is the shift; the hours beside a shift are
    # its own, no routine of their own
    said = {"At present I work the night shift three nights per week, which I find rather exhausting.":
            "User's routine: works night shift.",
            "since last week I work mornings, 7 to 3.": "User's routine: works mornings, 7 to 3.",
            "on days now alhamdulillah, 7 till 5, sleepin proper at night finally":
            "User's routine: works days, 7 till 5."}
    for text, shift in said.items():
        assert [c for s, c in stored(extractor, text).items() if s.startswith("habit")] == [shift], text


def test_an_introduction_with_an_apology_keeps_its_facts(extractor: LearnedExtractor) -> None:
    # "sorry if i type..." read as a hedge dropped the name and the job; the job ran back over the name
    facts = stored(extractor, "hiya im jodie, nurse on a cardio ward at the QEUH, sorry if i type like a potato")
    assert facts.get("name") == "User's name is jodie."
    assert "jodie" not in facts.get("job", "jodie")


@pytest.mark.parametrize(("text", "content"), [
    # the polarity head read each as the user's fact now
    ("I used to love horror films but after having kids I can't watch them", "User does not like horror films."),
    ("i used to play rugby", "User no longer does rugby."),
    ("turns out I'm not lactose intolerant, it was the coffee creamer all along", "User is not allergic to lactose."),
    ("I was keto for two years but I'm just eating normally now", "User no longer follows this diet: keto."),
    ("my asthma is basically gone since I moved out of the city", "User's health no longer: asthma."),
    # the verb of ending in the language the user switches to ("dejé", "parei", "arrêté")
    ("también dejé keto, me daba migraña todos los días, now just eating normal",
     "User no longer follows this diet: keto."),
    ("dejé el crossfit, me lastimé la rodilla", "User no longer does crossfit."),
    # ... and these still hold
    ("I've been vegan for two years but I miss cheese", "User's diet: vegan."),
    ("I'm used to spicy food", "User likes spicy food."),
])
def test_a_value_that_held_once_or_never_is_not_the_users_now(extractor: LearnedExtractor, text: str,
                                                               content: str) -> None:
    assert content in stored(extractor, text).values()


def test_a_standing_rule_is_the_order_not_the_reason_beside_it(extractor: LearnedExtractor) -> None:
    # the tagger kept the reason: "How to answer the user: they run mypy in strict mode."
    facts = stored(extractor, "always type-annotate python you give me, I run mypy in strict mode")
    # the reason may be a fact of its own ("User uses mypy in strict mode."), never a part of the rule
    assert [c for c in facts.values() if c.startswith("How to answer")] == [
        "How to answer the user: type-annotate python you give them."]
    assert "User uses strict mode." not in facts.values()  # a piece of a value said whole beside it
    assert "How to answer the user: temps in celsius pls, every time." in stored(
        extractor, "temps in celsius pls, every time").values()


@pytest.mark.parametrize(("text", "subject", "content"), [
    # said as the ground of a question, which the tagger and the question screen passed over
    ("As a coeliac of long standing, might I ask which cakes I may safely sample?", "health:coeliac",
     "User's health: coeliac."),
    ("speaking as a nurse, is 12 hours too long?", "job", "User's job: nurse."),
])
def test_what_the_user_is_said_as_the_ground_of_a_question(extractor: LearnedExtractor, text: str, subject: str,
                                                           content: str) -> None:
    assert stored(extractor, text).get(subject) == content


@pytest.mark.parametrize(("text", "medicine"), [
    # the user's own medicine asked about: "my" before it, or "I take" after it
    ("can i take ibuprofen with my sertraline?", "sertraline"),
    ("does grapefruit interfere with the atorvastatin I take every night?", "atorvastatin"),
    ("Could you kindly tell me whether green tea interacts with warfarin, which I have been taking since my heart "
     "operation in December?", "warfarin"),
])
def test_the_users_own_medicine_asked_about_is_theirs(extractor: LearnedExtractor, text: str, medicine: str) -> None:
    facts = stored(extractor, text).values()
    assert f"User's health: {medicine}." in facts
    assert "User's health: ibuprofen." not in facts  # what they ask about taking is no medicine of theirs


@pytest.mark.parametrize("text", ["I stopped my warfarin last week, is that ok?", "is my Pixel compatible with this?",
                                  "should I ask for sertraline instead?"])
def test_a_medicine_stopped_asked_for_or_no_medicine_is_none_of_theirs(extractor: LearnedExtractor,
                                                                      text: str) -> None:
    assert not [c for s, c in stored(extractor, text).items() if s.startswith("health:") and "no longer" not in c]


@pytest.mark.parametrize(("text", "language"), [("réponds-moi en français stp", "français"),
                                              ("nijibu kwa Swahili tu, hii English ya ofisi inanibore", "Swahili"),
                                              ("mujhe Hindi mein jawab do", "Hindi")])
def test_a_language_asked_for_in_the_users_own_words_is_the_answer_language(extractor: LearnedExtractor, text: str,
                                                                           language: str) -> None:
    assert language in stored(extractor, text).get("answer_language", "")


def test_what_a_clinician_finds_is_the_users_condition(extractor: LearnedExtractor) -> None:
    assert "User's health: arthrosis." in stored(extractor, "Knee is bad. Doctor says arthrosis.").values()


def test_a_language_asked_for_leaves_the_languages_the_user_speaks(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "I speak Hindi and Marathi, mujhe Hindi mein jawab do")
    assert "User speaks Marathi." in facts.values()
    assert "Hindi" in facts.get("answer_language", "")


def test_a_stack_only_weighed_is_no_stack(extractor: LearnedExtractor) -> None:
    assert "project_stack" not in stored(extractor, "would it be faster to redo my Django site in Go")


def test_as_a_result_is_nothing_the_user_is(extractor: LearnedExtractor) -> None:
    assert stored(extractor, "As a result, which bus should I take?") == {}


def test_where_the_user_works_remotely_from_is_their_home(extractor: LearnedExtractor) -> None:
    # the tagger reads it as where they are from
    facts = stored(extractor, "client is fintech startup from Berlin, I am contractor, work remote from Limassol.")
    assert facts.get("home_location") == "User lives in Limassol."
    assert "hometown" not in facts


def test_a_job_after_a_name_and_a_new_i_is_not_run_back_over_the_name(extractor: LearnedExtractor) -> None:
    # "User's job: Wanjiru I farm." was stored
    facts = stored(extractor, "okay so I am Wanjiru I farm in Nyeri county near Karatina I have two acres of coffee")
    assert facts.get("name") == "User's name is Wanjiru."
    # whether the tagger reads the farming as the job or as a pastime, the name is no part of it
    assert not [c for s, c in facts.items() if s != "name" and "Wanjiru" in c]


def test_a_pet_shouted_as_news_is_the_users(extractor: LearnedExtractor) -> None:
    # the tagger read nothing of it
    assert "User has a pet: kitten named Miso." in stored(
        extractor, "GOT A KITTEN 🐱🐱 shes called miso, jas said yes, landlord doesnt know 🤫").values()


def test_a_job_said_without_its_i_runs_back_to_working_at(extractor: LearnedExtractor) -> None:
    # the tagger marked "arndale": "User's job: arndale."
    facts = stored(extractor, "quit chatime, that manager was too much. working at urban outfitters in the arndale now")
    assert facts.get("job") == "User's job: urban outfitters in the arndale."


def test_an_age_someone_died_at_is_not_the_users(extractor: LearnedExtractor) -> None:
    assert "age" not in stored(extractor, "Mr Pickles died on Saturday last, at the age of nineteen. The vet was kind.")


def test_a_birth_announced_by_the_babys_name_is_family_and_its_weight_no_health(extractor: LearnedExtractor) -> None:
    # the tagger read "User Baby Nora arrived" as an event only, and "7 lbs 2 oz" as "User's health: lbs 2."
    facts = stored(extractor, "Baby Nora arrived on July 12! 7 lbs 2 oz, everyone's doing well, I'm running on fumes.")
    assert "User's family: baby Nora." in facts.values()
    assert not any(key.startswith("health") for key in facts)


def test_a_new_job_said_by_when_it_began_is_the_whole_job(extractor: LearnedExtractor) -> None:
    # "User's job: Oranmore." was stored
    facts = stored(extractor, "But the real news, and I'm burying the lede here, is that I started last week as deputy "
                              "principal at Scoil Éanna in Oranmore, the old one retired.")
    assert facts.get("job") == "User's job: deputy principal at Scoil Éanna in Oranmore."


def test_a_new_job_told_as_news_in_a_long_message_is_the_job(extractor: LearnedExtractor) -> None:
    # the tagger read it as an event only: "User started last week as head of maths at ..."
    facts = stored(extractor, "What a month. The school play was a disaster, the set fell over twice. But the big news "
                              "is that I started last week as head of maths at St Brigid's in Tuam, the old head left "
                              "in a hurry. Twelve years as a plain teacher and now this.")
    assert facts.get("job", "").startswith("User's job: head of maths at St Brigid's")


def test_a_births_date_is_the_childs_not_the_users_birthday(extractor: LearnedExtractor) -> None:
    # "User's birthday is 6 september." was stored
    facts = stored(extractor, "she's here!! Meera, born 6 september, 3.2kg, everyone is fine. Anya wants to carry "
                              "her everywhere")
    assert "birthday" not in facts
    assert "User's family: baby Meera." in facts.values()


def test_a_terse_move_names_the_new_home_by_the_place_and_now(extractor: LearnedExtractor) -> None:
    # the tagger read nothing of it
    facts = stored(extractor, "moved flats. kreuzberg now, shared with two others. closer to work")
    assert facts.get("home_location") == "User lives in kreuzberg."


def test_a_diet_that_did_not_last_is_ended_and_what_is_eaten_again_no_longer_avoided(
        extractor: LearnedExtractor) -> None:
    # both were read as holding now: "User's diet: pescatarian.", "User avoids chicken."
    facts = stored(extractor, "update: i started eating chicken again lol pescatarian era over, the doc said it helps")
    assert facts.get("diet") == "User no longer follows this diet: pescatarian."
    assert facts.get("avoids:chicken") == "User no longer avoids chicken."
    assert stored(extractor, "ok so vegetarian didnt last, had a sausage roll").get("diet") == (
        "User no longer follows this diet: vegetarian.")


def test_where_the_user_lives_said_in_other_words_is_their_home(extractor: LearnedExtractor) -> None:
    # the tagger read the nationality and not the town; the Pidgin "dey stay" and the rented flat not at all
    assert stored(extractor, "I'm a Kiwi living in London, homesick, what NZ snacks can I get here").get(
        "home_location") == "User lives in London."
    # said as the ground of a question, still where the user lives
    assert stored(extractor, "Chale I dey stay Tema Community 25, which market get cheap tomatoes?").get(
        "home_location") == "User lives in Tema Community 25."
    assert "home_location" not in stored(extractor, "I'd love living in Lisbon one day, what are the best areas?")
    assert stored(extractor, "how do I fix a leaky tap, I rent a flat in Leeds and the landlord is useless").get(
        "home_location") == "User lives in Leeds."


def test_a_place_the_user_will_stay_in_is_a_plan_not_a_home(extractor: LearnedExtractor) -> None:
    # the retrained tagger read Florence as where the user lives, and the dates as plans of their own
    facts = stored(extractor, "Richard and I shall be in Florence from the 9th to the 16th of April.")
    assert "home_location" not in facts
    assert [c for s, c in facts.items() if s.startswith("plan") and "Florence" in c]


def test_the_place_a_move_went_to_is_the_home(extractor: LearnedExtractor) -> None:
    # "moved" in the clause had both places ended: "User no longer lives in Paris."
    message = Message(role="user", content="we moved over from Lyon to Paris", message_id="m1",
                      created_at=datetime(2026, 5, 1, tzinfo=UTC))
    facts = {c.content: c.polarity for c in extractor.extract([message]).accepted}
    assert facts.get("User lives in Paris.") is True
    assert "User no longer lives in Paris." not in facts


def test_where_a_brother_lives_is_not_the_users_home(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "tryin to plan a fishin trip to lake of the woods in july with my brother gary, he "
                              "lives out in regina. we go every coupel years")
    assert "home_location" not in facts


def test_what_else_is_said_out_or_paused_ends_nothing_the_user_has(extractor: LearnedExtractor) -> None:
    # "season 2 is out" read as the favourite said out; "no more gaming until" as the gaming given up
    assert stored(extractor, "My favourite show is Severance, season 2 is out").get("favorite:show") == (
        "User's favourite: Severance.")
    assert stored(extractor, "No more gaming until my exams are done") == {}


def test_a_workplace_left_ends_only_the_job_named_by_its_whole_words(extractor: LearnedExtractor) -> None:
    # "work" of "my notice at work" dropped the new job "social worker", and a notice to the landlord ended a job
    facts = _said(extractor, "I handed in my notice at work, new job is social worker at the council")
    assert "user's job: social worker at the council." in facts
    assert not any("landlord" in fact for fact in _said(extractor, "I gave my notice to the landlord, moving out"))


def test_a_routine_that_only_names_the_shift_is_a_routine_of_its_own(extractor: LearnedExtractor) -> None:
    # the yoga routine was rewritten as "works nights"
    facts = _said(extractor, "I work nights, so I do yoga most nights before my shift")
    assert any("yoga" in fact for fact in facts)


def test_a_new_pets_name_goes_to_no_other_pet_with_a_name(extractor: LearnedExtractor) -> None:
    # "our old cat Luna" became "cat named Pip"
    facts = _said(extractor, "we got a new cat, he's called Pip! our old cat Luna is not impressed")
    assert any("luna" in fact for fact in facts)


def test_a_trip_from_a_workplace_ends_no_job(extractor: LearnedExtractor) -> None:
    # "went from Tesco to" was read as a switch that left Tesco: "User no longer works as/at Tesco."
    assert stored(extractor, "After my shift I went from Tesco to my mum's").get("job") == "User's job: Tesco."


def test_a_near_miss_ends_no_pastime(extractor: LearnedExtractor) -> None:
    # the tagger reads "nearly quit" as quit: "User no longer does the choir."
    assert stored(extractor, "I nearly quit the choir last week haha") == {}
    assert stored(extractor, "I almost gave up running but stuck with it") == {}


@pytest.mark.parametrize("text", ["our head office is in London, I'm in the Bristol branch", "My office is in Leeds",
                                  "I have now moved teams, the new team is in Manchester"])
def test_where_the_work_is_is_no_home(extractor: LearnedExtractor, text: str) -> None:
    # tagger-3 read each place as the user's home ("User lives in London." superseded "User lives in York.")
    assert "home_location" not in stored(extractor, text)
    assert stored(extractor, "my flat is in Leeds").get("home_location") == "User lives in Leeds."


def test_a_shop_switched_for_someone_else_is_no_job_left(extractor: LearnedExtractor) -> None:
    # "User no longer works as/at Tesco." (the tagger reads Tesco as a job, "switched" holds its "no")
    assert "job" not in stored(extractor, "We switched the kids from Tesco to Aldi for the weekly shop")
    assert stored(extractor, "I switched my job from Tesco to Aldi").get("job") == "User's job: Aldi."


@pytest.mark.parametrize("text", ["I'm done with London, moving back to Cork in May",
                                  "I gave my notice to my landlord today, we're moving to Leeds"])
def test_a_move_still_to_come_is_a_plan_not_a_home(extractor: LearnedExtractor, text: str) -> None:
    # tagger-3 read each place moved to as the home now ("User lives in Cork.")
    assert not any(fact.startswith("User lives in") for fact in stored(extractor, text).values())
    assert stored(extractor, "Moving to Leeds was the best thing we did").get("home_location") == (
        "User lives in Leeds.")


def test_the_users_own_editor_is_a_tool_they_use_not_the_projects_stack(extractor: LearnedExtractor) -> None:
    # "User's project uses neovim." was a doubtful change of the one stack and never kept
    facts = stored(extractor, "editor is neovim. gopls config?")
    assert facts.get("uses:neovim") == "User uses neovim."
    assert not [c for s, c in facts.items() if s == "project_stack" and "neovim" in c]


def test_the_verb_of_an_ending_alone_is_no_value(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "I should also say that I have rather given up on the watercolours; my hands are no "
                              "longer steady enough.")
    assert "User's hobby: given." not in facts.values()
    assert "User no longer does watercolours." in facts.values()


def test_a_food_said_after_no_is_kept_out_not_a_diet_ended(extractor: LearnedExtractor) -> None:
    # "User no longer follows this diet: gluten." retired the user's gluten allergy
    message = Message(role="user", content="been cooking more now I'm settled still no gluten obviously",
                      message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    facts = {c.content: c.polarity for c in extractor.extract([message]).accepted}
    assert not [c for c in facts if c.startswith("User no longer follows this diet")]
    assert facts.get("User avoids gluten.") is True


def test_what_the_user_is_not_is_no_relative(extractor: LearnedExtractor) -> None:
    assert "User's family: mum." not in stored(extractor, "I'm not a mum yet but we're trying").values()


def test_an_ending_said_with_when_it_happened_is_no_pause(extractor: LearnedExtractor) -> None:
    # "this week" read as a pause (2aa619b) lost the ending
    assert stored(extractor, "I quit the gym this week").get("hobby:gym") == "User no longer does the gym."


def test_a_stack_a_switch_reading_confirms_is_as_sure_as_the_reading(extractor: LearnedExtractor) -> None:
    # read by the tagger alone at 0.78, "rust" was a doubtful change of the stack said before, and never kept
    message = Message(role="user", content="rewrote the shipper in rust. gc pauses were killing p99", message_id="m1",
                      created_at=datetime(2026, 5, 1, tzinfo=UTC))
    stacks = [c for c in extractor.extract([message]).accepted if c.subject == "project_stack"]
    assert [c.content for c in stacks] == ["User's project uses rust."]
    assert stacks[0].confidence >= 0.9


@pytest.mark.parametrize(("value", "clause", "done"), [
    ("moved in Saturday", "alright we are officially in Dallas moved in Saturday", True),
    ("Austin house last week", "the Austin house closed last week thank god", True),
    ("week in tenerife from the 3rd of june", "booked a week in tenerife from the 3rd of june", False),
    ("going to my sister's wedding on saturday", "going to my sister's wedding on saturday", False),
    ("Berlin marathon in September", "signed up for the Berlin marathon in September", False),
    ("dentist in April", "dentist in April", False),
    # a name or a noun in -ed, a plan moved, a state of mind about it, or said to be ahead: still to come
    ("Ahmed's wedding is next saturday", "Ahmed's wedding is next saturday and I'm the best man", False),
    ("speed dating on friday", "speed dating on friday, wish me luck", False),
    ("Guided tour of the Vatican on Tuesday", "Guided tour of the Vatican on Tuesday!", False),
    ("advanced yoga class on thursday", "advanced yoga class on thursday, nervous", False),
    ("rescheduled my driving test to april 3rd", "rescheduled my driving test to april 3rd", False),
    ("supposed to fly to Paris", "I'm supposed to fly to Paris next week for work", False),
    ("excited to go to Japan next month", "so excited to go to Japan next month!!", False),
    ("wedding since last Tuesday", "I've been planning our wedding since last Tuesday and it's in August", False),
    ("finished the couch to 5k last week", "finished the couch to 5k last week!!", True),
    # the date is when the plan was made or moved from
    ("trip to Rome we booked last week is on the 20th", "the trip to Rome we booked last week is on the 20th", False),
    ("interview was postponed from last Monday to this Thursday",
     "my interview was postponed from last Monday to this Thursday", False),
])
def test_a_plan_already_done_is_no_plan(value: str, clause: str, done: bool) -> None:
    from mnemo.domain.extraction.pipeline import already_happened

    assert already_happened(value, clause, datetime(2026, 3, 1, tzinfo=UTC)) is done


def test_a_doing_told_in_the_past_is_stored_as_what_happened(extractor: LearnedExtractor) -> None:
    facts = stored(extractor,
                   "alright we are officially in Dallas. moved in Saturday. the Austin house closed last week")
    assert not [c for c in facts.values() if c.startswith("User plans")]
    assert facts.get("home_location") == "User lives in Dallas."


@pytest.mark.parametrize(("text", "content"), [
    ("im a junior at westland high, my bday is april 9", "User's studies: junior at westland high."),
    ("Hello! I am Haruka from Osaka, now I am exchange student in Melbourne for one year.",
     "User's studies: exchange student."),
    ("I grew up in Beirut and moved here for med school.", "User's studies: med school."),
])
def test_a_student_of_any_kind_is_studying_not_working(extractor: LearnedExtractor, text: str, content: str) -> None:
    facts = stored(extractor, text)
    assert facts.get("education") == content
    assert "job" not in facts


@pytest.mark.parametrize("text", ["I'm a student nurse on a surgical ward", "I'm a senior engineer at Google",
                                  # the students are whom the user works with
                                  "I'm a tutor for high school students",
                                  "I work with international students at the uni"])
def test_a_job_with_a_word_of_school_stays_a_job(extractor: LearnedExtractor, text: str) -> None:
    assert "job" in stored(extractor, text)


@pytest.mark.parametrize(("text", "kept"), [
    ("My back is destroyed today from lifting.", False),
    ("i have a migraine rn", False),
    ("my asthma is bad today", True),  # a condition that lasts, whatever the day
    ("started metformin today", True),  # a medicine started today is taken from now on
    ("I was diagnosed with asthma today", True),
    # a finding, an operation lived with for weeks, and "RN" the job, not "right now"
    ("the doctor told me today I have a torn ACL", True),
    ("I'm recovering from knee surgery at the moment", True),
    ("I'm an RN and I have a heart condition", True),
    # what the user is on is taken from now on
    ("on prozac atm, it helps", True),
    ("I'm on the pill rn", True),
    # today said of something else, after the condition; a condition by its kind
    ("I'm type 1, sugars are all over the place today", True),
    ("I have EDS and my joints are bad today", True),
    ("I have kidney disease, dialysis today", True),
    ("I have sickle cell and I'm in a crisis right now", True),
])
def test_a_state_of_health_said_of_today_alone_is_no_lasting_fact(extractor: LearnedExtractor, text: str,
                                                                  kept: bool) -> None:
    assert ("health" in " ".join(stored(extractor, text))) is kept


def test_a_weakness_for_a_thing_is_a_fondness(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "I have a weakness for brutalist buildings, the rougher the better.")
    assert "User likes brutalist buildings." in facts.values()
    assert not [c for c in facts.values() if "dislikes" in c]


def test_no_cap_is_a_saying_not_a_thing_avoided(extractor: LearnedExtractor) -> None:
    assert not [c for c in stored(extractor, "no cap oat milk is superior").values() if "cap" in c.split()[-1]]
    assert [c for c in stored(extractor, "no caffeine for me after 2pm").values() if c.startswith("User avoids caff")]


@pytest.mark.parametrize(("text", "pet"), [
    ("Hola! soy Lupita, I have a little panadería here in Oaxaca city", False),
    ("I've a wee boat, a 22ft Orkney Longliner, I take her out for mackerel.", False),
    ("my dog biscuit ate my sock lol", True),
    ("my pup Coco is a mini goldendoodle", True),
])
def test_a_pet_is_an_animal_or_a_name(extractor: LearnedExtractor, text: str, pet: bool) -> None:
    assert any(k.split(":")[0] == "pet" for k in stored(extractor, text)) is pet


@pytest.mark.parametrize(("text", "kept"), [
    ("I'm lactose intolerant but I'm fine with lactose-free milk", "User is lactose intolerant."),
    ("I'm allergic to cow's milk, i'm ok with oat milk though", "User is allergic to cow's milk."),
    ("im fine with eggs in cakes but scrambled eggs give me hives, allergist says its an egg allergy",
     "User is allergic to eggs."),
])
def test_an_allergy_beside_a_thing_the_user_is_fine_with_stays(extractor: LearnedExtractor, text: str,
                                                               kept: str) -> None:
    # the fact dropped shared a word with what the user is fine with, or that was one form of it
    assert kept in stored(extractor, text).values()


@pytest.mark.parametrize(("text", "content"), [
    ("Our eldest daughter, Maryam, is to be married on the 14th of June, God willing; the nikah will be held at "
     "the mosque.", "User's calendar: daughter Maryam is to be married on the 14th of June (for 2026-06-14)."),
    ("my daughter Njeri is getting married on August 15th in Othaya she is a teacher there",
     "User's calendar: daughter Njeri is getting married on August 15th (for 2026-08-15)."),
    ("my sis ria is coming to visit jul 12-26, first time in canada! shes vegan so help",
     "User's calendar: sis ria is coming to visit jul 12-26 (shes vegan) (for 2026-07-12)."),
    ("ugh my in-laws are coming next weekend, need a menu",
     "User's calendar: in-laws are coming next weekend (for 2026-05-08)."),
])
def test_a_dated_happening_of_the_family_is_on_the_users_calendar(extractor: LearnedExtractor, text: str,
                                                                  content: str) -> None:
    assert content in stored(extractor, text).values()


@pytest.mark.parametrize("text", ["my coworker is getting married in June", "is my mum coming on friday?",
                                  "if my sister visits in may we'll go to paris", "my mum is coming to stay",
                                  "my dad turned 70 last week"])
def test_no_plan_of_the_family_without_a_date_to_come_or_a_close_one(extractor: LearnedExtractor,
                                                                    text: str) -> None:
    assert not [c for c in stored(extractor, text).values() if "(for " in c]


def test_the_users_own_plan_with_family_is_no_family_date(extractor: LearnedExtractor) -> None:
    assert not [c for c in stored(extractor, "me & my bf are moving to Leeds in May").values()
                if c.startswith("User's calendar")]


@pytest.mark.parametrize(("text", "pet"), [
    ("Helena has alergia a amendoim — peanut — we carry the EpiPen everywhere. Lucas eats everything", False),
    ("Biscuit needs the vet on friday, he keeps chewing his paw", True),
])
def test_a_name_alone_is_a_pet_only_where_pet_care_is_spoken_of(extractor: LearnedExtractor, text: str,
                                                                pet: bool) -> None:
    assert any(k.split(":")[0] == "pet" for k in stored(extractor, text)) is pet


@pytest.mark.parametrize(("text", "home"), [
    ("WE BOUGHT A LITTLE HOUSE IN AMES. No stairs, close to the hospital. Moved in Saturday.", "User lives in ames."),
    ("we bought a flat in Malaga for the holidays", None),
    ("we just bought a house in Leeds, moving in june", None),  # a move to come is no home yet
])
def test_a_home_bought_is_the_home_once_moved_into(extractor: LearnedExtractor, text: str, home: str | None) -> None:
    assert stored(extractor, text).get("home_location") == home


@pytest.mark.parametrize("text", [
    "We had intended to travel to Furano in Hokkaido in August for the lavender fields. However, my knee will not "
    "permit such a journey.",
    "I'd planned to visit mum in May but I can't now, work got crazy",
])
def test_a_plan_the_user_had_is_no_plan(extractor: LearnedExtractor, text: str) -> None:
    assert not [s for s in stored(extractor, text) if s.startswith("plan:")]


@pytest.mark.parametrize("text", ["I'd planned to propose in Paris on the 14th, what restaurant should I book?",
                                  "I had planned to visit mum in May, and I'm still going, just shorter"])
def test_a_plan_the_user_had_and_still_has_is_a_plan(extractor: LearnedExtractor, text: str) -> None:
    assert [s for s in stored(extractor, text) if s.startswith("plan:")]


@pytest.mark.parametrize(("text", "job"), [
    ("first week at Zentra done, platform team, onboarding bahut slow hai but log ache hai", "User's job: Zentra."),
    ("first day at Disneyland with the kids!!", None),
    ("my son's first day at St Mary's went well, his teacher is lovely", None),
    # a holiday, a festival, a university or a time said with everyday words is no workplace
    ("first week at Center Parcs with the kids, loads of fun", None),
    ("first week at Oxford done, orientation was intense and the college is gorgeous", None),
    ("first week at 6AM starts, brutal, the routes are long but the pay is ok", None),
    ("first day at Disneyland with the kids, the staff were lovely", None),
    # the first pay from a place, and "sa" as Tagalog says "at"; the same work at the new place is the job there
    ("First salary in Comarch! Same position, QA engineer, but no crazy overtime like before.",
     "User's job: QA engineer at Comarch."),
    ("first week ko sa Rush! ICU pa rin, nights pa rin, pero mas ok ang staffing", "User's job: Rush."),
    ("my son's first salary from Google came in", None),
    # a country, a city abroad or a month is where or when the work is
    ("First salary in Canada!! finally after 6 months of job hunting", None),
    ("got my first paycheck in March, finally", None),
    ("first week ko sa Dubai, ok naman yung work pero mainit", None),
    # the work said beside the new place is the job there
    ("My first salary from Amazon came in, I'm a warehouse associate", "User's job: warehouse associate at Amazon."),
])
def test_the_first_days_at_a_workplace_say_the_new_job(extractor: LearnedExtractor, text: str, job: str | None) -> None:
    assert stored(extractor, text).get("job") == job


def test_a_tool_uninstalled_is_no_longer_used(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "uninstalled vscode last week, I'm on Neovim full time now")
    assert not [c for c in facts.values() if c == "User uses vscode."]


@pytest.mark.parametrize(("text", "avoided"), [
    ("My doctor has told me to reduce salt because of my blood pressure. It is difficult.", "salt"),
    ("the GP said I need to cut back on sugar", "sugar"),
    ("doctor put me on lisinopril for my blood pressure last month and told me to lay off the salt", "salt"),
    ("my doctor told my dad to stop smoking", None),
    ("doc says I should cut down on stress", None),
])
def test_what_the_doctor_told_the_user_to_cut_down_on_is_avoided(extractor: LearnedExtractor, text: str,
                                                                 avoided: str | None) -> None:
    facts = [c for c in stored(extractor, text).values() if c.startswith("User avoids")]
    assert facts == ([f"User avoids {avoided}."] if avoided else [])


@pytest.mark.parametrize(("text", "diet"), [
    ("btw main eggetarian hu, no chicken no fish, but anda chalega", "User's diet: eggetarian."),
    ("je suis végétarienne depuis dix ans", "User's diet: végétarienne."),
    ("I'm not vegan, I just like oat milk", None),
])
def test_a_diet_named_in_the_users_own_language_is_their_diet(extractor: LearnedExtractor, text: str,
                                                              diet: str | None) -> None:
    assert [c for c in stored(extractor, text).values() if c.startswith("User's diet")] == ([diet] if diet else [])


def test_an_order_to_answer_in_another_language_is_a_standing_rule_not_a_language_spoken(
        extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "et aussi, from now on, réponds-moi en français s'il te plaît, I want to integrate "
                              "fully here")
    assert [c for c in facts.values() if c.startswith("How to answer the user") and "français" in c]
    assert not [c for c in facts.values() if c.startswith("User speaks")]


@pytest.mark.parametrize(("text", "spoken"), [
    ("I speak English and a bit of Spanish", {"User speaks English.", "User speaks Spanish."}),
    ("Danish, English. Some German.", {"User speaks Danish.", "User speaks English.", "User speaks German."}),
])
def test_a_language_spoken_is_a_language(extractor: LearnedExtractor, text: str, spoken: set[str]) -> None:
    said = {c for c in stored(extractor, text).values() if c.startswith("User speaks")}
    assert said
    assert said <= spoken


def test_the_off_of_a_phrasal_verb_ends_nothing(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "company ask me extend contract 2 months, i said yes, so sign off is June now")
    assert not [c for c in facts.values() if " not " in c or "no longer" in c]
    assert "User's health no longer: warfarin." in stored(extractor, "they took me off the warfarin").values()


@pytest.mark.parametrize(("text", "spoken"), [
    ("I speak Yoruba, Pidgin and English", "User speaks Pidgin."),
    ("I'm a hairdresser in Kingston, I speak patois and English", "User speaks patois."),
    ("I'm a Maasai guide in the Mara, I speak Maa, Swahili and English", "User speaks Maa."),
])
def test_a_language_no_list_holds_is_still_spoken(extractor: LearnedExtractor, text: str, spoken: str) -> None:
    assert spoken in stored(extractor, text).values()


@pytest.mark.parametrize("text", ["retired nurse, 69, live in a caravan on the coast, two cockatiels",
                                  "I have a kelpie called Dusty, she works the cattle with me"])
def test_a_pet_named_by_its_kind_in_the_plural_or_an_uncommon_one_is_a_pet(extractor: LearnedExtractor,
                                                                          text: str) -> None:
    assert any(k.split(":")[0] == "pet" for k in stored(extractor, text))


@pytest.mark.parametrize("text", ["my parents are retiring to Malaga next year",
                                  "my in-laws visit next week, my wife wants the house spotless"])
def test_a_relatives_own_plan_or_one_the_tagger_read_is_no_second_family_date(extractor: LearnedExtractor,
                                                                             text: str) -> None:
    assert not [c for c in stored(extractor, text).values() if c.startswith("User's calendar")]


def test_a_message_typed_in_capitals_is_read_as_one_typed_in_lower_case(extractor: LearnedExtractor) -> None:
    # the rules that find people read every capital as a name's: the grandson's allergy was lost
    facts = stored(extractor, "MY GRANDSON JOSH IS 10 AND HE HAS A NUT ALLERGY, HE CARRIES AN EPIPEN, SO I AM "
                              "ALWAYS CAREFUL WHEN HE COMES FOR SUNDAY DINNER")
    assert any("family_care" in s and "nut" in c for s, c in facts.items()), facts
    assert not any(s == "allergy" for s in facts)  # the grandson's, not the user's


@pytest.mark.parametrize(("text", "language"), [
    ("Can you reply in Taglish from now on? Parang mas comfortable ako", "taglish"),
    ("olha, de agora em diante responde em português, tá? tô cansada de ler em inglês", "português"),
    ("ok, can you go back to English now? preciso treinar meu inglês pra reunião", "english"),
])
def test_a_standing_answer_language_asked_as_a_favour_or_in_another_language_is_kept(
        extractor: LearnedExtractor, text: str, language: str) -> None:
    # each was refused as a question or as a one-off request
    rules = [c for s, c in stored(extractor, text).items() if s == "answer_language"]
    assert rules
    assert language in rules[0].lower()


@pytest.mark.parametrize("text", ["can you answer this one in French?", "could you explain this in Spanish?"])
def test_a_question_about_one_answer_is_still_no_rule(extractor: LearnedExtractor, text: str) -> None:
    assert "answer_language" not in stored(extractor, text)


def test_a_medicine_named_after_its_kind_by_a_doctor_spoken_of_as_he(extractor: LearnedExtractor) -> None:
    # "a statin" hid the name after it, and "He" made the medicine someone else's
    facts = stored(extractor, "He has put me on a statin, atorvastatin, since two weeks. Sometimes I have pain.")
    assert any("atorvastatin" in c for c in facts.values()), facts
    assert not any("metformin" in c for c in stored(extractor, "she told me she is on metformin").values())


def test_the_place_of_the_users_workplace_stays_with_the_job(extractor: LearnedExtractor) -> None:
    # the screen keeps "pangyo" out of the home, as where the user works; the job kept no place at all
    facts = stored(extractor, "jisoo. 31. gameplay programmer, small indie studio in pangyo. 6 ppl")
    assert "pangyo" in facts.get("job", "")
    assert "home_location" not in facts
    assert "morning" not in stored(extractor, "I'm a nurse at the hospital in the morning").get("job", "")


def test_an_age_before_the_job_in_an_introduction_is_no_part_of_it(extractor: LearnedExtractor) -> None:
    assert stored(extractor, "hey im dana 41 nurse in leeds w my wife").get("job") == "User's job: nurse."


def test_a_flatmate_who_lives_with_the_user_is_at_the_table(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "my flatmate Rohan lives with me and he's vegan")
    assert any(s.startswith("family_care:") and "vegan" in c for s, c in facts.items()), facts
    assert "diet" not in facts


@pytest.mark.parametrize(("text", "home"), [
    ("I live in Berlin, in Kreuzberg", "User lives in Kreuzberg, Berlin."),
    ("A big change: we have sold the house and we have installed ourselves in Lyon, in the 6th arrondissement, to "
     "be near our daughter Claire",
     "User lives in the 6th arrondissement, Lyon."),
])
def test_the_city_said_before_the_part_of_it_stays_with_the_home(extractor: LearnedExtractor, text: str,
                                                                  home: str) -> None:
    # the tagger marks the district alone: the city was lost
    assert stored(extractor, text).get("home_location") == home
@pytest.mark.parametrize(("text", "old", "new"), [
    ("Ramipril stopped. Cough. Now amlodipine 5 mg.", "ramipril", "amlodipine"),
    ("my consultant rang to say metformin wasnt enough so ive stopped it and im on insulin injections at night now",
     "metformin", "insulin"),
    ("doctor change my drug, him say metformin dey worry my stomach. now na gliclazide i dey take every morning",
     "metformin", "gliclazide"),
])
def test_a_medicine_ended_after_it_is_named_is_no_longer_taken(extractor: LearnedExtractor, text: str, old: str,
                                                                 new: str) -> None:
    # each old medicine was kept as taken beside the new one: the block named both
    message = Message(role="user", content=text, message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    health = [c for c in extractor.extract([message]).accepted if c.tags and c.tags[0] == "health"]
    assert [c.polarity for c in health if old in c.content.lower()] == [False]
    assert [c.polarity for c in health if new in c.content.lower()] == [True]


def test_a_medicine_taken_beside_another_ending_stays(extractor: LearnedExtractor) -> None:
    assert stored(extractor, "I take metformin and I stopped eating sugar").get("health:metformin", "").endswith(
        "metformin.")


@pytest.mark.parametrize(("text", "diet"), [
    ("my doctor said I should do low carb for a while, my glicose was a bit high in the exame", "low carb"),
    ("the dietitian wants me on a low FODMAP diet", "low FODMAP"),
])
def test_a_diet_the_doctor_told_the_user_to_follow_is_their_diet(extractor: LearnedExtractor, text: str,
                                                                  diet: str) -> None:
    # the tagger read the doctor or the condition, and not the diet
    assert stored(extractor, text).get("diet") == f"User's diet: {diet}."


def test_a_diet_the_doctor_told_someone_else_to_follow_is_not_the_users(extractor: LearnedExtractor) -> None:
    assert "diet" not in stored(extractor, "my doctor said my wife should go keto")
    assert "diet" not in stored(extractor, "should I go keto? my doctor said maybe")
@pytest.mark.parametrize(("text", "ended"), [
    ("also vscode uninstall kar diya, ab Neovim pe hu full time", "vscode"),
    ("gym chhod diya yaar, ab running karta hu", "gym"),
])
def test_an_ending_said_after_its_object_in_hinglish_ends_it(extractor: LearnedExtractor, text: str,
                                                              ended: str) -> None:
    message = Message(role="user", content=text, message_id="m1", created_at=datetime(2026, 5, 1, tzinfo=UTC))
    found = extractor.extract([message]).accepted
    assert [c.polarity for c in found if ended in c.content.lower()] == [False]
    assert not [c for c in found if c.content == "User uses kar."]


def test_a_shift_taken_up_again_is_the_users_one_shift(extractor: LearnedExtractor) -> None:
    assert stored(extractor, "Back on night shift starting next week, 3 nights a week").get(
        "habit:work_shift") == "User's routine: works night shift."


def test_a_sentences_particles_are_no_part_of_its_values(extractor: LearnedExtractor) -> None:
    # Thai, Singlish and Hindi English end sentences with particles: "User lives in Phuket ka." was the profile's home
    facts = stored(extractor, "Sawasdee ka, I am Nok na, 34 year old, I work massage therapist at spa in Kata beach, "
                              "Phuket ka")
    assert facts.get("home_location") == "User lives in Phuket."
    assert facts.get("name") == "User's name is Nok."


def test_a_relatives_name_said_after_them_is_theirs_not_the_users(extractor: LearnedExtractor) -> None:
    # "His name is Joon" replaced the user's name
    facts = stored(extractor, "Also my wife gave birth to our son last month! His name is Joon. Very little sleep.")
    assert "name" not in facts
    assert "User's family: son Joon." in facts.values()
    assert [c for s, c in stored(extractor, "my new granddaughter arrived, she's called Ivy").items()
            if s.startswith("family")] == ["User's family: granddaughter Ivy."]


def test_a_stack_found_in_a_sentence_naming_more_technologies_is_all_of_them(extractor: LearnedExtractor) -> None:
    facts = stored(extractor, "For your kind information, our core platform is on Java 17 with Spring Boot "
                              "microservices, deployed on AWS EKS, and Postgres is the main datastore.")
    assert facts.get("project_stack") == "User's project uses Java 17, Spring Boot, AWS EKS, Postgres."


@pytest.mark.parametrize(("text", "health"), [
    ("Ankle is twisted in class on Tuesday, doctor says two weeks no jumps.", "User's health: twisted ankle."),
    ("my mum's ankle is broken", None),  # someone else's
    ("her knee is swollen", None),
])
def test_an_injury_said_as_the_state_of_the_users_body(extractor: LearnedExtractor, text: str,
                                                       health: str | None) -> None:
    facts = stored(extractor, text)
    assert [c for s, c in facts.items() if s.startswith("health")] == ([health] if health else [])
