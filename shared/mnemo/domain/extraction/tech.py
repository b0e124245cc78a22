"""Lists of technologies a developer writes tersely: "go, postgres, k8s.", "kotlin + spring", "bubbletea + lipgloss".

The tagger marks one item of such a list ("postgres") or none, and sometimes reads an item as something else
("User's job: k8s."). A stack is the whole list, so a stack value the tagger found is widened to the list it sits
in, and a fragment that is nothing but a list of known technologies is a stack even where the tagger saw none.
The list of names is exact and short on purpose: what it lacks, the tagger may still mark and the list widening
still carries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from mnemo.domain.extraction.dates import CALENDAR_NAMES

# names that are technologies wherever they are written
_TECH = frozenset("""
python javascript typescript golang kotlin scala haskell elixir erlang clojure ocaml fortran cobol php perl lua
c++ c# f# .net dotnet java zig nim solidity bash powershell sql nosql graphql grpc protobuf wasm webassembly
django fastapi flask-restful laravel symfony rails sinatra nestjs nextjs next.js nuxt nuxtjs sveltekit svelte vue
vuejs react reactjs angular angularjs jquery htmx alpinejs tailwind tailwindcss bootstrap redux vite webpack
esbuild babel node nodejs node.js deno bun npm yarn pnpm pip poetry conda uv cargo gradle maven sbt cmake bazel
spring-boot springboot hibernate jpa quarkus micronaut ktor gin fastify koa hapi expressjs phoenix ecto
postgres postgresql postgis mysql mariadb sqlite mongodb mongo redis memcached cassandra dynamodb cockroachdb
clickhouse snowflake bigquery redshift elasticsearch opensearch solr neo4j supabase firebase firestore pocketbase
kafka rabbitmq nats zeromq celery sidekiq airflow dagster dbt spark hadoop flink pandas numpy scipy polars
pytorch tensorflow keras jax sklearn scikit-learn xgboost lightgbm huggingface langchain llamaindex
docker podman kubernetes k8s k3s helm terraform pulumi ansible puppet chef-infra nginx apache caddy traefik
aws gcp azure lambda ec2 s3 cloudflare vercel netlify heroku render fly.io hetzner digitalocean linode
github gitlab bitbucket jenkins circleci travis buildkite argocd prometheus grafana datadog sentry
jest vitest mocha cypress playwright selenium pytest junit testify rspec
flutter react-native swiftui jetpack xamarin ionic electron tauri unity unreal godot
rust-analyzer tokio actix axum rocket diesel sqlx serde clap ratatui bubbletea lipgloss cobra chi echo-framework
express.js prisma drizzle sequelize typeorm sqlalchemy alembic pydantic mypy ruff htmx.org jinja
wordpress shopify drupal magento strapi contentful
""".split())
# names that are technologies only beside another one ("go" and "rust" are words; "go, postgres" is a stack)
_BESIDE_ANOTHER = frozenset("""
go rust swift ruby dart julia elm r c java kafka spring express flask rails node react remix next chi gin echo
fiber vapor pandas spark docker lambda render fly deno bun vue
""".split())

# programming languages: a list naming one says what a thing is built in, not only what was added to it
_LANGUAGES = frozenset("""
python javascript typescript golang go kotlin scala haskell elixir erlang clojure ocaml php perl lua c++ c# f# java
zig rust swift ruby dart julia r c nim solidity
""".split())

# between sentence marks; a dot inside a word is no mark ("django 4.2", "node.js")
_FRAGMENT = re.compile(r"(?:[^.;:!?\n()]|\.(?=\S))+")
_ITEM_SEPARATOR = re.compile(r"\s*(?:,|\+|/|&|\band\b|\bwith\b|\bplus\b|\bin\b|\bon\b)\s*", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-z0-9][\w.#+-]*")
# an item is a name and at most a word about it ("htmx frontend", "go 1.22"); one opening with a known name may say
# a little more of what it does ("celery for background jobs")
ITEM_MAX_WORDS = 2
NAMED_ITEM_MAX_WORDS = 4


@dataclass(frozen=True)
class TechList:
    start: int  # character offsets of the list in the text
    end: int
    text: str


def _known(word: str) -> str | None:
    w = word.lower().rstrip(".")
    if w in _TECH:
        return "sure"
    return "beside" if w in _BESIDE_ANOTHER else None


def is_technology(word: str, said_of_code: bool = False) -> bool:
    """A word that names a technology on its own ("postgres", "kotlin"), as the tech lists read it; where the words
    around are only ever said of code (``said_of_code``: "rewrote the shipper in rust"), a language too."""
    w = word.lower().rstrip(".")
    return _known(w) == "sure" or (said_of_code and w in _LANGUAGES)


# words around an item that say how much of it, not what ("mostly Golang + Postgres, thoda Kafka bhi")
_HOW_MUCH = re.compile(r"^(?:(?:mostly|mainly|mostly using|using|also|plus|some|a bit of|a little|bit of|thoda|thodi|"
                       r"kuch)\s+)+|(?:\s+(?:bhi|too|as well|also|mostly))+$", re.IGNORECASE)


def _items(fragment: str) -> list[str] | None:
    """The fragment's items when it is a list of short items, else None."""
    items = [i.strip() for i in _ITEM_SEPARATOR.split(fragment) if i.strip()]
    for item in items:
        words = _WORD.findall(_HOW_MUCH.sub("", item))
        limit = NAMED_ITEM_MAX_WORDS if words and _known(words[0]) == "sure" else ITEM_MAX_WORDS
        if not words or len(words) > limit:
            return None
    return items if len(items) >= 2 else None


def is_stack(items: list[str]) -> bool:
    """Two items or more that name technologies, one of them a name that is nothing else."""
    kinds = [next((k for k in map(_known, _WORD.findall(item)) if k), None) for item in items]
    named = [k for k in kinds if k]
    return len(named) >= 2 and "sure" in named and len(named) * 2 >= len(items)


def names_a_language(listed: str) -> bool:
    """Whether a list of technologies names a programming language ("kotlin + spring", not "tokio + serde")."""
    return any(word.lower().rstrip(".") in _LANGUAGES for word in _WORD.findall(listed))


def tech_lists(text: str) -> list[TechList]:
    """The fragments of the text (between sentence marks) that are lists of technologies."""
    out = []
    for fragment in _FRAGMENT.finditer(text):
        body = fragment.group(0)
        items = _items(body)
        if items is None or not is_stack(items):
            continue
        if text[fragment.end():fragment.end() + 1] == "?":
            continue  # "go, postgres, redis?" asks which
        lead = len(body) - len(body.lstrip())
        start, end = fragment.start() + lead, fragment.start() + len(body.rstrip())
        out.append(TechList(start, end, text[start:end]))
    return out


def widened_stack(value: str, text: str) -> str:
    """A stack value the tagger found, as the whole list of technologies it sits in ("postgres" of "go, postgres,
    k8s." -> "go, postgres, k8s"); the value itself when it is in no such list."""
    at = text.find(value)
    if at < 0:
        return value
    for found in tech_lists(text):
        # within the list, or over it and past its end ("go + postgres. at pesaflow": the tagger ran on)
        if found.start <= at < found.end or at <= found.start < at + len(value):
            return found.text
    return value


# what may follow a technology's name as part of it: a version ("Java 17", "Unreal Engine 5") or a word with a capital
# that names no technology itself ("Spring Boot", "AWS EKS", "Unreal Engine")
_VERSION = re.compile(r"^v?\d[\w.]*$")
_NAME_GOES_ON = re.compile(r"^[A-Z][\w.#+-]*$")
_NO_PART = CALENDAR_NAMES | frozenset({
    "i", "and", "with", "on", "in", "for", "the", "a", "an", "is", "are", "we", "our", "my", "developer", "developers",
    "engineer", "engineers", "architect", "lead", "manager", "dev", "devs", "week", "weekend", "today", "tomorrow",
    "next", "last", "this"})
# a part of the sentence about something else: the user's own learning, a past job ("I am learning Rust on the side",
# "previously I did Java at Oracle")
_ANOTHER_PART = re.compile(r"\b(?:and\s+i|i['’]m|i\s+am|previously|used\s+to|before\s+that|learning)\b", re.IGNORECASE)
# "next" is Next.js only beside another name, never before a time ("Next week we add Stripe")
_NEXT_TIME = re.compile(r"\s+(?:week|month|year|time|day|weekend|sprint|release|quarter)\b", re.IGNORECASE)


# a technology named as left behind: "moved ci from jenkins to github actions", "Python's out", "instead of MySQL"
_LEFT_BEHIND_BEFORE = re.compile(r"\b(?:from|instead of|rather than|replac\w*|no more|not|without|dropp\w*|"
                                 r"ditch\w*|legacy|previously|learning|"
                                 r"away from|off|swapp\w*|migrat\w* from|used to)\s+(?:the\s+|our\s+|my\s+)?$",
                                 re.IGNORECASE)
_LEFT_BEHIND_AFTER = re.compile(r"(?:['’]s|\s+is|\s+was)?\s+(?:out|gone|dead|dropped|retired|no more|any ?more)\b",
                                re.IGNORECASE)


def technologies_named(sentence: str) -> list[str]:
    """The technologies a sentence names, each with its version or the capitalised words that are part of its name
    ("our core platform is on Java 17 with Spring Boot microservices, deployed on AWS EKS, and Postgres" -> Java 17,
    Spring Boot, AWS EKS, Postgres); none where it names fewer than two or none that is only a technology."""
    other = _ANOTHER_PART.search(sentence)
    sentence = sentence[:other.start()] if other else sentence
    words = list(_WORD.finditer(sentence))
    kinds = [None if w.group(0).lower() == "next" and _NEXT_TIME.match(sentence, w.end()) else _known(w.group(0))
             for w in words]
    if "sure" not in kinds or len([k for k in kinds if k]) < 2:
        return []
    out: list[str] = []
    i = 0
    while i < len(words):
        if kinds[i] is None:
            i += 1
            continue
        end = i + 1
        while end < len(words) and kinds[end] is None and end - i <= 2 and (
                _VERSION.match(words[end].group(0)) or (_NAME_GOES_ON.match(words[end].group(0))
                                                        and words[end].group(0).lower() not in _NO_PART)
        ) and sentence[words[end - 1].end():words[end].start()].strip() == "":
            end += 1
        if not (_LEFT_BEHIND_BEFORE.search(sentence, max(0, words[i].start() - 30), words[i].start())
                or _LEFT_BEHIND_AFTER.match(sentence, words[end - 1].end())):
            out.append(sentence[words[i].start():words[end - 1].end()].rstrip("."))
        i = end
    return out


# the user's own work named by its tools, in passing: "My Playwright tests in TypeScript fail only on CI", "my
# Django app in Python 3.12 keeps timing out", "why does my React Native app written in TypeScript crash?"
_WORK_NOUN = (r"(?:tests?|test\s+suite|suite|project|app|apps|code|codebase|pipeline|setup|scripts?|repo|build|game|"
              r"site|website|backend|frontend|service|api|bot|server)")
_MY_TOOLS = re.compile(
    r"\bmy\s+(?P<first>[A-Za-z][\w.#+-]*(?:\s+[A-Za-z][\w.#+-]*)?)\s+" + _WORK_NOUN
    + r"\s+(?:(?:is|are)\s+)?(?:(?:written|built|made|done)\s+)?(?:in|with|on|using)\s+(?P<second>[A-Za-z][\w.#+-]*)",
    re.IGNORECASE)


def tools_of_their_work(text: str) -> list[TechList]:
    """The technologies the user names as their own work's in passing, when both are known and one is a language
    ("Playwright, TypeScript"): a stack, said where the message asks or complains as often as not."""
    out = []
    for m in _MY_TOOLS.finditer(text):
        first, second = m.group("first"), m.group("second")
        if all(is_technology(w, True) for w in first.split()) and is_technology(second, True):
            value = f"{first}, {second}"
            if names_a_language(value):
                out.append(TechList(m.start("first"), m.end("second"), value))
    return out
