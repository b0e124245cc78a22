"""Terse lists of technologies read as a stack (domain/extraction/tech.py)."""

from __future__ import annotations

import pytest

from mnemo.domain.extraction.tech import tech_lists, technologies_named, tools_of_their_work, widened_stack


@pytest.mark.parametrize(("text", "listed"), [
    ("kai. backend @ fernwerk. go, postgres, k8s.", ["go, postgres, k8s"]),
    ("left fernwerk. now @ kessel, payments infra. kotlin + spring. sigh.", ["kotlin + spring"]),
    ("side project: matatu route tracker. go, postgis, htmx frontend. hosted on a cheap hetzner box",
     ["go, postgis, htmx frontend"]),
    ("new job stack: rust, kafka, k8s. no go at all", ["rust, kafka, k8s"]),
    # a version's dot is no sentence's end; a known name may say what it does
    ("context: django 4.2 + postgres 15 in docker compose, celery for background jobs. client is a startup",
     ["django 4.2 + postgres 15 in docker compose, celery for background jobs"]),
])
def test_a_fragment_that_lists_technologies_is_a_stack(text: str, listed: list[str]) -> None:
    assert [found.text for found in tech_lists(text)] == listed


@pytest.mark.parametrize("text", [
    "I love spring and summer",          # "spring" alone is a season
    "we had eggs, toast and coffee",
    "go, see, conquer",                  # "go" counts only beside a name that is nothing else
    "my kids, my job and my dog",
    "rust and go",                       # two words that are also plain words
    "quick one: go, postgres, redis? or just sqlite?",  # asks which
    "we use django and htmx with postgres on render for the whole thing",  # an item too long to be a name
])
def test_a_list_of_other_things_is_no_stack(text: str) -> None:
    assert tech_lists(text) == []


def test_a_stack_value_is_the_whole_list_it_sits_in() -> None:
    assert widened_stack("postgres", "kai. go, postgres, k8s.") == "go, postgres, k8s"
    # the tagger ran on past the list's end
    assert widened_stack("go + postgres. at pesaflow", "go + postgres. at pesaflow, payments") == "go + postgres"
    assert widened_stack("Django", "we moved the app to Django last year") == "Django"


def test_a_list_names_a_language_or_only_what_was_added() -> None:
    from mnemo.domain.extraction.tech import names_a_language
    assert names_a_language("kotlin + spring")
    assert names_a_language("go, postgres, k8s")
    assert not names_a_language("tokio + serde")


def test_words_of_how_much_around_an_item_leave_it_a_list() -> None:
    # "thoda Kafka bhi" (a bit of Kafka too) was three words, too many for an item: the list was no list
    found = tech_lists("HSR Layout mein rehta hu Bengaluru. mostly Golang + Postgres, thoda Kafka bhi")
    assert len(found) == 1
    assert "Golang" in found[0].text
    assert "Kafka" in found[0].text


@pytest.mark.parametrize(("sentence", "named"), [
    # each with its version or the capitalised words of its name
    ("our core platform is on Java 17 with Spring Boot microservices, deployed on AWS EKS, and Postgres is the main "
     "datastore.", ["Java 17", "Spring Boot", "AWS EKS", "Postgres"]),
    ("project is PC survival game, Unreal Engine 5 + C++.", ["Unreal Engine 5", "C++"]),
    # one left behind is not named
    ("stack is Golang + chi + Postgres now, Python's out", ["Golang", "chi", "Postgres"]),
    ("moved ledgerline ci from jenkins to github actions.", ["github"]),
    ("We're migrating a huge legacy PHP app to Laravel and Postgres", ["Laravel", "Postgres"]),
    # the user's own learning or a past job is another part of the sentence; a weekday or a job is no part of a name
    ("Our app is built with React and Node, and I am learning Rust on the side", ["React", "Node"]),
    ("Our backend is Django on Postgres, I'm a Python Developer at Monzo", ["Django", "Postgres"]),
    ("We use Go and Kafka Streams Monday to Friday", ["Go", "Kafka Streams"]),
    ("The project uses Vue with Firebase Hosting Next week we add Stripe", ["Vue", "Firebase Hosting"]),
    # fewer than two, or none that is only a technology
    ("I write Python at work", []),
    ("I go to the gym", []),
])
def test_the_technologies_a_sentence_names(sentence: str, named: list[str]) -> None:
    assert technologies_named(sentence) == named


@pytest.mark.parametrize(("text", "stacks"), [
    ("My Playwright tests in TypeScript fail only on CI, locally all green.", ["Playwright, TypeScript"]),
    ("my Django app in Python keeps timing out", ["Django, Python"]),
    ("my son's Python code in Flask is slow", []),  # the son's
    ("my wedding site in Squarespace", []),  # no technology the list knows, no language
])
def test_the_users_own_work_named_by_its_tools(text: str, stacks: list[str]) -> None:
    assert [found.text for found in tools_of_their_work(text)] == stacks
