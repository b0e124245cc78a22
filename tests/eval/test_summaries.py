"""The summary benchmark's scorer, checked on summaries whose score is known (issue 16).

A correct summary written from the truth states every required fact, duplicates nothing and claims
nothing unsupported; the summaries consolidation used to write (one claim three times, counting
every event) and summaries with wrong dates, mixed topics or invented trends are caught.
"""

from __future__ import annotations

import statistics

from tests.eval.summary_histories import MONTHS, History, Summary, TopicTruth, generate, score, unsupported


def spoken(day: object) -> str:
    return f"{day.day} {MONTHS[day.month - 1].title()} {day.year}"  # type: ignore[attr-defined]


def oracle(topic: TopicTruth) -> list[str]:
    """What a careful reader of the episodes would write."""
    rate, per = topic.rate()
    texts = [f"User {topic.stems[0]} {len(topic.episodes)} times between {spoken(topic.dates[0])} and "
             f"{spoken(topic.dates[-1])}, about {rate:.1f} times a {per}."]
    if topic.unit and len(topic.quantities) >= len(topic.episodes) / 2:
        q = topic.quantities
        texts.append(f"Each was {min(q):g} to {max(q):g} {topic.unit}, "
                     f"typically {statistics.median(q):g} {topic.unit}.")
    if topic.places or topic.companions:
        texts.append("Mostly at " + " and ".join(topic.places + topic.companions) + ".")
    if topic.gap:
        texts.append(f"User took a break between {spoken(topic.gap[0])} and {spoken(topic.gap[1])}.")
    if topic.trend:
        texts.append("They have got " + ("longer" if topic.trend == "up" else "shorter") + " since January.")
    return texts


def oracle_summaries(histories: list[History]) -> dict[str, list[Summary]]:
    return {h.user_id: [Summary(text, [e.episode_id for e in t.episodes])
                        for t in h.topics.values() for text in oracle(t)] for h in histories}


def test_the_generator_mixes_topics_with_quantities_gaps_and_trends() -> None:
    histories = generate()
    topics = [t for h in histories for t in h.topics.values()]
    assert {t.key for t in topics} == {"run", "bike", "swim", "piano", "groceries", "climbing", "reading", "yoga"}
    assert all(len(t.episodes) >= 50 for t in topics)
    assert sum(1 for t in topics if t.gap) >= 5
    assert sum(1 for t in topics if t.trend) >= 5
    assert sum(1 for t in topics if t.unit and not t.trend) >= 5  # noise without a trend
    assert generate()[0].episodes[0].text == histories[0].episodes[0].text  # seeded


def test_a_correct_summary_scores_full_marks() -> None:
    histories = generate()
    result = score(histories, oracle_summaries(histories))
    assert (result["coverage"], result["duplicated"], result["unsupported"]) == (1.0, 0, 0), result["problems"][:5]


def test_one_claim_repeated_is_caught_and_covers_little() -> None:
    histories = generate(users=2)
    old = {}
    for h in histories:
        ids = [e.episode_id for e in h.episodes]  # every episode of the user, as the old clusters did
        dates = sorted(e.when.date() for e in h.episodes)
        old[h.user_id] = [Summary(f"Recurring ({len(ids)} related events, {dates[0]} to {dates[-1]}), for "
                                  f"example: {h.episodes[i].text}", ids) for i in range(3)]
    result = score(histories, old)
    assert result["duplicated"] >= 4 * len(histories)
    assert result["unsupported"] >= 3 * len(histories)  # mixed topics
    assert result["coverage"] < 0.2


def test_wrong_dates_counts_places_and_trends_are_unsupported() -> None:
    history = generate(users=1)[0]
    topic = next(t for t in history.topics.values() if t.unit and not t.trend)
    ids = [e.episode_id for e in topic.episodes]
    other = next(e for e in history.episodes if e.topic != topic.key and e.when.date() not in topic.dates)
    assert unsupported(Summary(f"User did it {len(ids) + 7} times.", ids), history) == [f"count {len(ids) + 7}"]
    assert unsupported(Summary(f"The last one was on {other.when.date().isoformat()}.", ids), history)
    assert unsupported(Summary("They have got longer since January.", ids), history) == ["trend up"]
    assert unsupported(Summary("User did it at the Oriente Pool with Marta.", ids), history)
    assert unsupported(Summary("User did it.", [*ids, other.episode_id]), history)[0].startswith("mixed topic")


def test_the_offline_summariser_meets_the_targets() -> None:
    """Issue 16's bar: >= 90% of the required facts stated, no claim twice, nothing unsupported."""
    from tests.eval.summaries import run

    result = run()
    assert result["coverage"] >= 0.9, result["missing"][:10]
    assert result["duplicated"] == 0, result["problems"][:10]
    assert result["unsupported"] == 0, result["problems"][:10]
    assert set(result["facts_per_topic"]) <= {2, 3, 4, 5}  # every topic summarised, at most five facts
