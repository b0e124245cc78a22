"""Generated episode histories with the facts a correct summary must state, and the scorer.

Written before the summariser (issue 16), so that it measures the summariser rather than describes
it. Each user has three or four recurring topics mixed together (runs and bike rides share a unit,
runs and swims share places, some topics have a break of several weeks, some a trend, some none),
one topic too small to summarise and a few one-off events. The truth comes from the generated
episodes, never from the text of a summary.

A summary is scored as text, the way a reader would take it in:
- *claims* are read out of it: counts ("55 times"), rates ("about 4 times a week"), dates
  ("12 December 2025" or 2025-12-12), quantities and ranges ("5 to 12 km"), typical values
  ("typically 8 km"), named places and companions, and trends ("longer", "fewer"...);
- a claim is *unsupported* when the episodes the summary links (its provenance) do not bear it out:
  a date that is not one of theirs, a count or a range that is not theirs, a rate more than 25% off,
  a place or person not in them, a trend where there is none or in the wrong direction; a summary
  whose episodes come from more than one true topic is one unsupported claim (a mixed topic);
- a claim is *duplicated* when two summaries of one topic state it (same count, rate, date,
  range, place, person or trend);
- a *required fact* is stated when some summary drawn mostly from that topic carries the claim:
  what the user does (the activity's word), how many times and how often, the range and the
  typical value of the quantity, the places and companions that recur, the first and the latest
  date, the break (the dates either side of it) and the trend's direction.
"""

from __future__ import annotations

import random
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september",
          "october", "november", "december"]
UNITS = {"km": "km", "kilometres": "km", "kilometers": "km", "minutes": "minutes", "minute": "minutes",
         "min": "minutes", "mins": "minutes", "laps": "laps", "lap": "laps", "pages": "pages", "page": "pages",
         "eur": "EUR", "euros": "EUR", "euro": "EUR", "€": "EUR"}
UP = {"longer", "more", "further", "increased", "grown", "risen", "higher", "bigger", "up"}
DOWN = {"shorter", "fewer", "less", "decreased", "dropped", "fallen", "lower", "smaller", "down"}


@dataclass(frozen=True)
class TopicSpec:
    key: str
    stems: tuple[str, ...]  # any of these words names the activity
    templates: tuple[str, ...]  # {q} quantity, {place} ' at X' etc., {who} ' with X'
    unit: str | None  # the quantity's unit, None when the episodes give none
    base: float = 0.0
    spread: float = 0.0
    step: float = 1.0  # values are rounded to a multiple of this
    places: tuple[tuple[str, str], ...] = ()  # (phrase in the text, the name a summary must use)
    companions: tuple[str, ...] = ()
    companion_share: float = 0.0
    quantity_share: float = 1.0  # share of episodes that state the quantity


POOL = [
    TopicSpec("run", ("run", "runs", "ran", "running", "jog", "jogged"), (
        "User went for a {q} run{place}{who}.", "User ran {q}{place}{who}.",
        "User did a {q} run{place}{who} before work.", "User jogged {q}{place}{who}."),
        "km", base=6, spread=1.2, places=((" along the river", "river"), (" in Monsanto Park", "Monsanto Park")),
        companions=("Marta",), companion_share=0.3),
    TopicSpec("bike", ("cycled", "cycling", "bike", "rode", "ride", "rides"), (
        "User cycled {q} to work{who}.", "User rode the bike {q} to the office{who}.",
        "User commuted by bike, {q} each way{who}."),
        "km", base=14, spread=2, companions=("Joao",), companion_share=0.25),
    TopicSpec("swim", ("swam", "swim", "swims", "swimming"), (
        "User swam {q}{place}{who}.", "User went swimming{place} and did {q}{who}.",
        "User had a swim{place}: {q}{who}."),
        "laps", base=30, spread=5, places=((" at the Oriente Pool", "Oriente Pool"),
                                            (" at the Aquatic Centre", "Aquatic Centre"))),
    TopicSpec("piano", ("piano",), (
        "User practised the piano for {q}.", "User played the piano for {q} in the evening.",
        "User had a piano practice session of {q}."),
        "minutes", base=35, spread=8, step=5),
    TopicSpec("groceries", ("groceries", "grocery", "shopping", "supermarket"), (
        "User spent {q} on groceries{place}.", "User did the grocery shopping{place} and paid {q}.",
        "User bought the week's groceries{place} for {q}."),
        "EUR", base=60, spread=12, places=((" at Pingo Doce", "Pingo Doce"), (" at Lidl", "Lidl"))),
    TopicSpec("climbing", ("climbing", "climbed", "bouldering", "boulder"), (
        "User went climbing{place}{who}.", "User went bouldering{place}{who}.",
        "User climbed{place}{who} for the evening."),
        None, places=((" at Vertigo Gym", "Vertigo Gym"),), companions=("Ines", "Rui"), companion_share=0.5),
    TopicSpec("reading", ("read", "reading", "book"), (
        "User read {q} of a novel before bed.", "User read {q} on the train.", "User got through {q} of a book."),
        "pages", base=40, spread=10, step=5),
    TopicSpec("yoga", ("yoga",), (
        "User went to a yoga class{place}{who}.", "User did {q} of yoga{place}{who}.",
        "User took a {q} yoga class{place}{who}."),
        "minutes", base=60, spread=10, step=15, places=((" at Lotus Studio", "Lotus Studio"),),
        companions=("Sofia",), companion_share=0.3, quantity_share=0.7),
]
NAMES = frozenset({name for spec in POOL for _, name in spec.places} | {c for spec in POOL for c in spec.companions}
                  | {"Carla", "Tom", "Berlin", "Porto", "Alfama"})
SMALL = ("User went to the cinema to see a film{who}.", "User watched a film at the cinema{who}.")
ONE_OFFS = ("User adopted a cat named Tom.", "User went to the dentist for a filling.",
            "User flew to Berlin for a conference.", "User's sister got married in Porto.",
            "User moved to a new flat in Alfama.", "User passed the driving test.")


@dataclass
class Episode:
    episode_id: str
    topic: str  # the spec key, "small" or "one-off"
    text: str
    when: datetime
    quantity: float | None = None
    place: str | None = None
    companion: str | None = None


@dataclass
class TopicTruth:
    key: str
    stems: tuple[str, ...]
    episodes: list[Episode]
    unit: str | None
    trend: str | None  # "up", "down" or None
    gap: tuple[date, date] | None  # the last date before a break and the first after it
    places: list[str] = field(default_factory=list)  # recurring (>= 25% of episodes)
    companions: list[str] = field(default_factory=list)  # recurring (>= 20%)

    @property
    def dates(self) -> list[date]:
        return sorted(e.when.date() for e in self.episodes)

    @property
    def quantities(self) -> list[float]:
        return [e.quantity for e in self.episodes if e.quantity is not None]

    def rate(self) -> tuple[float, str]:
        """Episodes per week over the whole span (per month when under one a week)."""
        days = max(7, (self.dates[-1] - self.dates[0]).days + 1)
        weekly = len(self.episodes) / (days / 7)
        return (weekly, "week") if weekly >= 1 else (weekly * 30.44 / 7, "month")

    def required(self) -> list[tuple[str, Any]]:
        """The facts a correct summary of this topic must state."""
        facts: list[tuple[str, Any]] = [("activity", self.stems), ("count", len(self.episodes)),
                                        ("rate", self.rate()), ("first", self.dates[0]),
                                        ("latest", self.dates[-1])]
        if self.unit and len(self.quantities) >= len(self.episodes) / 2:
            facts += [("range", (min(self.quantities), max(self.quantities), self.unit)),
                      ("typical", (statistics.median(self.quantities), self.unit))]
        facts += [("place", p) for p in self.places] + [("companion", c) for c in self.companions]
        if self.gap:
            facts.append(("gap", self.gap))
        if self.trend:
            facts.append(("trend", self.trend))
        return facts


@dataclass
class History:
    user_id: str
    episodes: list[Episode]
    topics: dict[str, TopicTruth]  # only the ones large enough to summarise

    def entities(self) -> set[str]:
        """Every place and companion the generator can name (in this history or any other)."""
        return NAMES


def _quantity_text(spec: TopicSpec, value: float, rng: random.Random) -> str:
    number = f"{value:g}"
    if spec.unit == "EUR":
        return rng.choice([f"€{number}", f"{number} euros", f"{number} EUR"])
    if spec.unit == "minutes" and value >= 60 and value % 60 == 0 and rng.random() < 0.3:
        return f"{number} minutes"
    return f"{number} {spec.unit}"


def generate(seed: int = 16, users: int = 8, min_size: int = 50) -> list[History]:
    rng = random.Random(seed)
    histories = []
    for u in range(users):
        start = datetime(2025, 11, 3, 7, 30, tzinfo=UTC) + timedelta(days=rng.randrange(0, 20))
        span = rng.randrange(80, 130)
        # every topic of the pool appears, next to the one after it (runs beside bike rides: one unit)
        first, second = POOL[u % len(POOL)], POOL[(u + 1) % len(POOL)]
        specs = [first, second, *rng.sample([p for p in POOL if p not in (first, second)], rng.choice([1, 2]))]
        episodes: list[Episode] = []
        topics: dict[str, TopicTruth] = {}
        for t, spec in enumerate(specs):
            trend = rng.choice([None, "up", "down"]) if spec.unit and spec.quantity_share == 1.0 else None
            size = rng.randrange(min_size + 5, min_size + 30)
            gap_days = rng.randrange(21, 32) if rng.random() < 0.45 else 0
            gap_start = rng.randrange(span // 4, span // 2) if gap_days else -1
            days = [d for d in range(span) if not gap_start <= d < gap_start + gap_days]
            chosen = sorted(rng.sample(days, min(size, len(days))))
            mine: list[Episode] = []
            for d in chosen:
                frac = d / span
                value = None
                if spec.unit and rng.random() < spec.quantity_share:
                    drift = {None: 0.0, "up": 0.8, "down": -0.45}[trend] * (frac - 0.5)
                    raw = spec.base * (1 + drift) + rng.gauss(0, spec.spread)
                    value = max(spec.step, round(raw / spec.step) * spec.step)
                place_phrase, place = rng.choice(spec.places) if spec.places else ("", None)
                if spec.places and len(spec.places) > 1 and rng.random() < 0.25:
                    place_phrase, place = spec.places[0]
                who = rng.choice(spec.companions) if spec.companions and rng.random() < spec.companion_share else None
                template = rng.choice([tp for tp in spec.templates if ("{q}" in tp) == (value is not None)]
                                      or list(spec.templates))
                text = template.format(q=_quantity_text(spec, value, rng) if value is not None else "",
                                       place=place_phrase, who=f" with {who}" if who else "")
                when = start + timedelta(days=d, hours=t * 3, minutes=rng.randrange(0, 50))
                mine.append(Episode(f"u{u}-{spec.key}-{d}", spec.key, text, when, value, place, who))
            episodes += mine
            truth = TopicTruth(spec.key, spec.stems, mine, spec.unit, trend, None)
            if gap_days:
                before = [e.when.date() for e in mine if (e.when - start).days < gap_start]
                after = [e.when.date() for e in mine if (e.when - start).days >= gap_start + gap_days]
                if before and after:
                    truth.gap = (max(before), min(after))
            counts = Counter(e.place for e in mine if e.place)
            truth.places = sorted(p for p, n in counts.items() if n >= 0.25 * len(mine))
            people = Counter(e.companion for e in mine if e.companion)
            truth.companions = sorted(p for p, n in people.items() if n >= 0.2 * len(mine))
            topics[spec.key] = truth
        for i, d in enumerate(sorted(rng.sample(range(span), 18))):
            who = " with Carla" if i % 3 == 0 else ""
            episodes.append(Episode(f"u{u}-small-{d}", "small", rng.choice(SMALL).format(who=who),
                                    start + timedelta(days=d, hours=20), companion="Carla" if who else None))
        for i, text in enumerate(rng.sample(ONE_OFFS, 4)):
            episodes.append(Episode(f"u{u}-once-{i}", "one-off", text, start + timedelta(days=rng.randrange(span))))
        rng.shuffle(episodes)
        histories.append(History(f"user-{u}", episodes, topics))
    return histories


# -- reading claims out of a summary ---------------------------------------------------------------

_NUM = r"(\d+(?:[.,]\d+)?)"
_UNIT = r"(km|kilometres|kilometers|minutes|minute|mins|min|laps|lap|pages|page|eur|euros|euro)"
_DATE_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_DATE_DMY = re.compile(r"\b(\d{1,2}) (" + "|".join(MONTHS) + r") (\d{4})\b", re.IGNORECASE)
_DATE_MDY = re.compile(r"\b(" + "|".join(MONTHS) + r") (\d{1,2}),? (\d{4})\b", re.IGNORECASE)
_COUNT = re.compile(r"\b(\d+) times\b(?! (?:a|per|each) (?:week|month))", re.IGNORECASE)
_RATE = re.compile(_NUM + r" (?:times |sessions |runs |visits )?(?:a|per|each) (week|month)", re.IGNORECASE)
_RANGE = re.compile(r"(?:€ ?)?" + _NUM + r" ?(?:" + _UNIT + r")? ?(?:to|-|–|and) ?(?:€ ?)?" + _NUM + r" ?"
                    + _UNIT + r"?", re.IGNORECASE)
_QUANTITY = re.compile(r"(?:(€) ?" + _NUM + r"|" + _NUM + r" ?" + _UNIT + r"\b)", re.IGNORECASE)
_TYPICAL = re.compile(r"\b(?:typically|usually|typical|median|on average|average of|averag\w+|mostly|most often)"
                      r"\D{0,20}?(?:€ ?)?" + _NUM + r" ?" + _UNIT + r"?", re.IGNORECASE)


def _float(text: str) -> float:
    return float(text.replace(",", "."))


def dates_in(text: str) -> list[date]:
    found = [date(int(y), int(m), int(d)) for y, m, d in _DATE_ISO.findall(text)]
    found += [date(int(y), MONTHS.index(m.lower()) + 1, int(d)) for d, m, y in _DATE_DMY.findall(text)]
    found += [date(int(y), MONTHS.index(m.lower()) + 1, int(d)) for m, d, y in _DATE_MDY.findall(text)]
    return found


@dataclass
class Claims:
    counts: list[int] = field(default_factory=list)
    rates: list[tuple[float, str]] = field(default_factory=list)
    dates: list[date] = field(default_factory=list)
    ranges: list[tuple[float, float, str]] = field(default_factory=list)
    quantities: list[tuple[float, str]] = field(default_factory=list)
    typical: list[tuple[float, str]] = field(default_factory=list)
    entities: list[str] = field(default_factory=list)
    trends: list[str] = field(default_factory=list)

    def atoms(self) -> set[tuple[Any, ...]]:
        """What two summaries of one topic must not both state."""
        return ({("count", c) for c in self.counts} | {("rate", r) for r in self.rates}
                | {("date", d) for d in self.dates} | {("range", r) for r in self.ranges}
                | {("entity", e) for e in self.entities} | {("trend", t) for t in self.trends})


def _unit_of(raw: str | None, default: str | None) -> str | None:
    return UNITS.get(raw.lower()) if raw else default


def claims_in(text: str, entities: set[str], unit: str | None) -> Claims:
    """The checkable claims of one summary; ``unit`` is assumed for bare numbers in a range."""
    c = Claims(dates=dates_in(text))
    plain = _DATE_ISO.sub(" ", _DATE_DMY.sub(" ", _DATE_MDY.sub(" ", text)))
    c.counts = [int(n) for n in _COUNT.findall(plain)]
    c.rates = [(_float(n), p.lower()) for n, p in _RATE.findall(plain)]
    for lo, u1, hi, u2 in _RANGE.findall(plain):
        got = _unit_of(u2 or u1, unit if "€" in plain else None) or (unit if (u1 or u2) else None)
        if got:
            c.ranges.append((_float(lo), _float(hi), got))
    for euro, n1, n2, u in _QUANTITY.findall(plain):
        c.quantities.append((_float(n1), "EUR") if euro else (_float(n2), UNITS[u.lower()]))
    for n, u in _TYPICAL.findall(plain):
        got = _unit_of(u, unit)
        if got:
            c.typical.append((_float(n), got))
    lowered = text.lower()
    c.entities = sorted(e for e in entities if re.search(r"\b" + re.escape(e.lower()) + r"\b", lowered))
    words = set(re.findall(r"[a-z]+", lowered))
    if words & UP:
        c.trends.append("up")
    if words & DOWN:
        c.trends.append("down")
    return c


# -- scoring ---------------------------------------------------------------------------------------

@dataclass
class Summary:
    text: str
    sources: list[str]  # episode ids


def _close(a: float, b: float, tolerance: float, slack: float = 0.0) -> bool:
    return abs(a - b) <= max(abs(b) * tolerance, slack)


def unsupported(summary: Summary, history: History) -> list[str]:
    """The claims of one summary that its own episodes do not bear out (each a short reason)."""
    by_id = {e.episode_id: e for e in history.episodes}
    sources = [by_id[s] for s in summary.sources if s in by_id]
    if not sources:
        return ["no provenance"]
    topics = {e.topic for e in sources}
    problems = [f"mixed topic: {sorted(topics)}"] if len(topics) > 1 else []
    truth = history.topics.get(next(iter(topics))) if len(topics) == 1 else None
    unit = truth.unit if truth else None
    c = claims_in(summary.text, history.entities(), unit)
    source_dates = {e.when.date() for e in sources}
    problems += [f"date {d} not an episode's" for d in c.dates if d not in source_dates]
    allowed_counts = {len(sources)} | set(Counter(e.place for e in sources if e.place).values()) \
        | set(Counter(e.companion for e in sources if e.companion).values()) \
        | {sum(1 for e in sources if e.quantity is not None)}
    problems += [f"count {n}" for n in c.counts if n not in allowed_counts]
    ordered = sorted(source_dates)
    days = max(7, (ordered[-1] - ordered[0]).days + 1)
    for value, per in c.rates:
        true = len(sources) / (days / 7) * (1 if per == "week" else 30.44 / 7)
        if not _close(value, true, 0.25, 0.3):
            problems.append(f"rate {value}/{per} (true {true:.2f})")
    values = [e.quantity for e in sources if e.quantity is not None]
    for lo, hi, u in c.ranges:
        if u != unit or not values or not (_close(lo, min(values), 0.05, 0.5) and _close(hi, max(values), 0.05, 0.5)):
            problems.append(f"range {lo}-{hi} {u}")
    for value, u in c.quantities:
        if u == unit and values and not min(values) - 0.5 <= value <= max(values) + 0.5:
            problems.append(f"quantity {value} {u}")
        elif u != unit and u in {"km", "minutes", "laps", "pages", "EUR"}:
            problems.append(f"unit {u} not in this topic")
    for value, u in c.typical:
        if u == unit and values and not _close(value, statistics.median(values), 0.2, 1.0):
            problems.append(f"typical {value} {u}")
    texts = " ".join(e.text.lower() for e in sources)
    problems += [f"entity {e}" for e in c.entities if e.lower() not in texts]
    problems += [f"trend {t}" for t in c.trends if truth is None or truth.trend != t]
    return problems


def stated(fact: tuple[str, Any], texts: list[str], claims: list[Claims]) -> bool:
    kind, value = fact
    if kind == "activity":
        return any(re.search(r"\b(" + "|".join(value) + r")\b", t, re.IGNORECASE) for t in texts)
    if kind == "count":
        return any(_close(n, value, 0.1) for c in claims for n in c.counts)
    if kind == "rate":
        true, per = value
        return any(_close(r * (1 if p == per else (30.44 / 7 if per == "month" else 7 / 30.44)), true, 0.2, 0.3)
                   for c in claims for r, p in c.rates)
    if kind in {"first", "latest"}:
        return any(abs((d - value).days) <= 1 for c in claims for d in c.dates)
    if kind == "range":
        lo, hi, unit = value
        return any(u == unit and _close(a, lo, 0.1, 1) and _close(b, hi, 0.1, 1) for c in claims
                   for a, b, u in c.ranges)
    if kind == "typical":
        median, unit = value
        return any(u == unit and _close(v, median, 0.15, 1) for c in claims for v, u in c.typical)
    if kind in {"place", "companion"}:
        return any(value in c.entities for c in claims)
    if kind == "gap":
        before, after = value
        return any(any(abs((d - before).days) <= 1 for d in c.dates) and any(abs((d - after).days) <= 1
                                                                                for d in c.dates) for c in claims)
    if kind == "trend":
        return any(value in c.trends for c in claims)
    raise ValueError(kind)


def score(histories: list[History], summaries: dict[str, list[Summary]]) -> dict[str, Any]:
    """Coverage of the required facts, duplicated claims and unsupported claims over all users."""
    required = covered = duplicated = wrong = 0
    missing: list[str] = []
    problems: list[str] = []
    facts_per_topic: list[int] = []
    for history in histories:
        by_id = {e.episode_id: e for e in history.episodes}
        mine = summaries.get(history.user_id, [])
        grouped: dict[str, list[Summary]] = {}
        for s in mine:
            topics = Counter(by_id[i].topic for i in s.sources if i in by_id)
            grouped.setdefault(topics.most_common(1)[0][0] if topics else "?", []).append(s)
            for p in unsupported(s, history):
                wrong += 1
                problems.append(f"{history.user_id}: {p} in {s.text!r}")
        for key, group in grouped.items():
            truth = history.topics.get(key)
            claims = [claims_in(s.text, history.entities(), truth.unit if truth else None) for s in group]
            seen: Counter[tuple[Any, ...]] = Counter()
            for c in claims:
                seen.update(c.atoms())
            for atom, n in seen.items():
                if n > 1:
                    duplicated += n - 1
                    problems.append(f"{history.user_id}/{key}: {atom} stated {n} times")
        for key, truth in history.topics.items():
            group = grouped.get(key, [])
            facts_per_topic.append(len(group))
            claims = [claims_in(s.text, history.entities(), truth.unit) for s in group]
            for fact in truth.required():
                required += 1
                if stated(fact, [s.text for s in group], claims):
                    covered += 1
                else:
                    missing.append(f"{history.user_id}/{key}: {fact[0]} {fact[1]}")
    return {"users": len(histories), "topics": len(facts_per_topic), "required": required, "stated": covered,
            "coverage": round(covered / required, 3) if required else 0.0, "duplicated": duplicated,
            "unsupported": wrong, "facts_per_topic": dict(sorted(Counter(facts_per_topic).items())),
            "missing": missing, "problems": problems}
