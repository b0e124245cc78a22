from datetime import UTC, datetime, timedelta

from mnemo.domain.models import Category, Memory
from mnemo.domain.ranking import Hit, RankingParams, Scored, rank, recency, semantic

NOW = datetime(2026, 6, 1, tzinfo=UTC)
PARAMS = RankingParams(a=0.6, b=0.25, c=0.15, importance=0.0, access=0.0, lexical_weight=0.3,
                       recency_lambda=0.01, sentence_weight=0.7, recency_exempt=frozenset({"constraint"}))


def memory(mid: str, days_old: float = 0, confidence: float = 0.9,
           category: Category = Category.PREFERENCE) -> Memory:
    when = NOW - timedelta(days=days_old)
    return Memory(memory_id=mid, tenant_id="t", user_id="u", category=category, subject=f"s:{mid}",
                  content=mid, confidence=confidence, created_at=when, updated_at=when, last_confirmed_at=when)


def test_recency_decays_exponentially_and_exempt_categories_do_not_decay() -> None:
    assert recency(memory("a"), NOW, 0.01) == 1.0
    assert abs(recency(memory("a", 69.3), NOW, 0.01) - 0.5) < 0.01
    assert recency(memory("c", 400, category=Category.CONSTRAINT), NOW, 0.01, frozenset({"constraint"})) == 1.0


def test_equally_similar_newer_fact_outranks_older_one() -> None:
    old, new = memory("old", 300), memory("new", 1)
    ranked = rank([Hit(old, 0.8, 0.0), Hit(new, 0.8, 0.0)], NOW, PARAMS)
    assert [s.memory.memory_id for s in ranked] == ["new", "old"]


def test_score_follows_the_spec_formula() -> None:
    m = memory("m", 0, confidence=0.5)
    (scored,) = rank([Hit(m, 0.5, 2.0)], NOW, PARAMS)
    relevance = 0.7 * 0.5 + 0.3 * 1.0
    assert abs(scored.relevance - relevance) < 1e-9
    assert abs(scored.score - (0.6 * relevance + 0.25 * 1.0 + 0.15 * 0.5)) < 1e-9


def test_lexical_evidence_is_normalised_per_query() -> None:
    a, b = memory("a"), memory("b")
    ranked = rank([Hit(a, 0.5, 10.0), Hit(b, 0.5, 5.0)], NOW, PARAMS)
    assert [round(s.lexical, 2) for s in ranked] == [1.0, 0.5]


def test_best_sentence_lifts_a_long_memory() -> None:
    long_memory = Hit(memory("long"), 0.3, 0.0, part_cosine=0.8)
    assert abs(semantic(long_memory, 0.7) - (0.3 * 0.3 + 0.7 * 0.8)) < 1e-9
    assert semantic(Hit(memory("short"), 0.3, 0.0), 0.7) == 0.3


def test_a_memory_made_on_a_day_the_query_names_gains_the_date_boost() -> None:
    from dataclasses import replace

    from mnemo.domain.when import date_spans

    on_the_day, other = memory("on-the-day", 10), memory("other", 30)
    day = (NOW - timedelta(days=10)).strftime("%d %B %Y")
    hits = [Hit(on_the_day, 0.5, 0.0), Hit(other, 0.6, 0.0)]
    params = replace(PARAMS, date_boost=0.2)
    assert [s.memory.memory_id for s in rank(hits, NOW, params)] == ["other", "on-the-day"]
    ranked = rank(hits, NOW, params, date_spans(f"what did I say on {day}?"))
    assert [s.memory.memory_id for s in ranked] == ["on-the-day", "other"]
    assert abs(ranked[0].relevance - (0.7 * 0.5 + 0.2)) < 1e-9
    # switched off by its setting
    assert rank(hits, NOW, replace(PARAMS, date_boost=0.0), date_spans(f"on {day}"))[0].memory.memory_id == "other"


def brute_force_context(moments: list[float], relevances: list[float], window: float) -> list[float]:
    return [max((relevances[j] for j in range(len(moments)) if j != i and abs(moments[i] - moments[j]) <= window),
                default=0.0) for i in range(len(moments))]


def test_sitting_context_is_the_best_other_relevance_within_the_window() -> None:
    from mnemo.domain.ranking import sitting_context

    # two sittings a day apart; within the first, 0.9 lends to its neighbours but not to itself
    moments = [0.0, 1.0, 2.0, 86400.0, 86401.0]
    relevances = [0.2, 0.1, 0.9, 0.5, 0.3]
    assert sitting_context(moments, relevances, 1800.0) == [0.9, 0.9, 0.2, 0.3, 0.5]
    # a narrower window reaches only the memories next to it
    assert sitting_context(moments, relevances, 1.0) == [0.1, 0.9, 0.1, 0.3, 0.5]
    assert sitting_context([0.0, 5.0], [0.9, 0.1], 1.0) == [0.0, 0.0]
    # memories made at the same moment are each other's neighbours
    assert sitting_context([3.0, 3.0], [0.4, 0.7], 0.0) == [0.7, 0.4]


def test_sitting_context_agrees_with_the_quadratic_definition() -> None:
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from mnemo.domain.ranking import sitting_context

    @settings(max_examples=300, deadline=None)
    @given(st.lists(st.tuples(st.integers(0, 50), st.floats(0, 1)), max_size=30), st.integers(0, 20))
    def check(points: list[tuple[int, float]], window: int) -> None:
        moments = [float(m) for m, _ in points]
        relevances = [r for _, r in points]
        assert sitting_context(moments, relevances, window) == brute_force_context(moments, relevances, window)

    check()


def test_a_memory_gains_a_share_of_its_sittings_best_match_and_keeps_its_own_relevance_apart() -> None:
    from dataclasses import replace

    question = memory("question", 10)  # shares the query's words
    reply = memory("reply", 10)  # said a minute later: the answer, in other words
    elsewhere = memory("elsewhere", 12)  # as weak a match as the reply, said on another day
    reply = reply.model_copy(update={"created_at": question.created_at + timedelta(minutes=1)})
    hits = [Hit(question, 0.9, 0.0), Hit(reply, 0.4, 0.0), Hit(elsewhere, 0.45, 0.0)]
    params = replace(PARAMS, context_weight=0.4, context_window_seconds=1800)
    by_id = {s.memory.memory_id: s for s in rank(hits, NOW, params)}
    assert abs(by_id["reply"].context - 0.4 * 0.7 * 0.9) < 1e-9
    assert abs(by_id["reply"].relevance - by_id["reply"].context - 0.7 * 0.4) < 1e-9
    assert by_id["elsewhere"].context == 0.0
    assert by_id["reply"].relevance > by_id["elsewhere"].relevance
    # switched off, the reply's own evidence is all it has
    off = {s.memory.memory_id: s for s in rank(hits, NOW, replace(params, context_weight=0.0))}
    assert off["reply"].context == 0.0
    assert off["reply"].relevance < off["elsewhere"].relevance


def test_a_needed_slot_gains_relevance_of_its_own_that_lends_nothing_to_the_sitting() -> None:
    from dataclasses import replace

    editor = memory("editor").model_copy(update={"subject": "uses:helix"})
    city = memory("city").model_copy(update={"subject": "home_location",
                                             "created_at": editor.created_at + timedelta(minutes=1)})
    hits = [Hit(editor, 0.05, 0.0), Hit(city, 0.3, 0.0)]
    params = replace(PARAMS, context_weight=0.4, context_window_seconds=1800)
    plain = {s.memory.memory_id: s for s in rank(hits, NOW, params)}
    boosted = {s.memory.memory_id: s for s in rank(hits, NOW, params, needed={"uses": 0.15})}
    assert abs(boosted["editor"].needed - 0.15) < 1e-9
    assert abs(boosted["editor"].relevance - plain["editor"].relevance - 0.15) < 1e-9
    assert abs(boosted["editor"].score - plain["editor"].score - params.a * 0.15) < 1e-9
    # the city's share of its sitting comes from the editor's own evidence, not from what it gained
    assert abs(boosted["city"].relevance - plain["city"].relevance) < 1e-9
    assert boosted["city"].needed == 0.0


def _scored(mid: str, relevance: float, minutes: float) -> Scored:
    m = memory(mid).model_copy(update={"created_at": NOW + timedelta(minutes=minutes)})
    return Scored(m, relevance, 0.0, relevance, 1.0, relevance)


def test_diversify_makes_the_nth_memory_of_one_sitting_pay_for_those_above_it() -> None:
    from mnemo.domain.ranking import diversify

    # three memories of one sitting, then one of another day a little less relevant than the second
    ranked = [_scored("a1", 0.9, 0), _scored("a2", 0.8, 1), _scored("a3", 0.79, 2), _scored("b", 0.75, 60 * 24)]
    order = [s.memory.memory_id for s in diversify(ranked, 0.1, 1800.0, 60, lambda s: s.relevance)]
    assert order == ["a1", "b", "a2", "a3"]  # a2 pays 0.1 (0.7 < 0.75), a3 pays 0.2 after a2
    # a small penalty orders as relevance does; 0 leaves the order untouched
    assert [s.memory.memory_id for s in diversify(ranked, 0.01, 1800.0, 60, lambda s: s.relevance)] == [
        "a1", "a2", "a3", "b"]
    assert diversify(ranked, 0.0, 1800.0, 60, lambda s: s.relevance) == ranked
    # memories an hour apart are not one sitting under a 30-minute window
    apart = [_scored("x", 0.9, 0), _scored("y", 0.8, 60), _scored("z", 0.7, 24 * 60)]
    assert diversify(apart, 0.5, 1800.0, 60, lambda s: s.relevance) == apart


def test_diversify_reorders_only_the_first_depth_candidates_and_agrees_with_the_plain_greedy() -> None:
    import random

    from mnemo.domain.ranking import diversify

    ranked = [_scored("a1", 0.9, 0), _scored("a2", 0.8, 1), _scored("b", 0.7, 60 * 24), _scored("c", 0.6, 0)]
    # with depth 2 the day-apart memory stays third, and c (of a1's sitting) stays last
    assert [s.memory.memory_id for s in diversify(ranked, 0.5, 1800.0, 2, lambda s: s.relevance)] == [
        "a1", "a2", "b", "c"]

    def greedy(items: list[Scored], penalty: float, window: float) -> list[str]:
        left, placed = list(range(len(items))), []
        t = [s.memory.created_at.timestamp() for s in items]
        while left:
            best = max(left, key=lambda i: (items[i].relevance - penalty * sum(
                1 for j in placed if abs(t[i] - t[j]) <= window), -i))
            placed.append(best)
            left.remove(best)
        return [items[i].memory.memory_id for i in placed]

    rng = random.Random(7)
    for _ in range(200):
        items = sorted((_scored(f"m{i}", round(rng.random(), 2), rng.choice([0, 5, 40, 90, 600]) + rng.random())
                        for i in range(rng.randint(2, 12))), key=lambda s: -s.relevance)
        penalty = rng.choice([0.05, 0.1, 0.3])
        assert [s.memory.memory_id for s in diversify(items, penalty, 1800.0, 60, lambda s: s.relevance)] == greedy(
            items, penalty, 1800.0)


def test_the_second_query_vectors_cosine_orders_without_counting_as_own_evidence() -> None:
    from dataclasses import replace

    # both share the name the question asks about; only the second says what it asks (its second cosine)
    chatter = Hit(memory("chatter", 40), 0.6, 0.0, None, 0.1)
    answer = Hit(memory("answer", 50), 0.55, 0.0, 0.5, 0.5, 0.7)
    params = replace(PARAMS, second_weight=0.3)
    by_id = {s.memory.memory_id: s for s in rank([chatter, answer], NOW, params)}
    second = semantic(Hit(answer.memory, 0.5, 0.0, 0.7), params.sentence_weight)
    assert abs(by_id["answer"].context - 0.3 * second) < 1e-9
    assert abs(by_id["answer"].relevance - by_id["answer"].context
               - 0.7 * semantic(answer, params.sentence_weight)) < 1e-9
    assert by_id["answer"].relevance > by_id["chatter"].relevance
    # off (0), or a hit without a second cosine, it changes nothing
    off = {s.memory.memory_id: s for s in rank([chatter, answer], NOW, PARAMS)}
    assert off["answer"].context == 0.0
    assert off["answer"].relevance < off["chatter"].relevance
    alone = rank([Hit(answer.memory, 0.55, 0.0, 0.5)], NOW, params)[0]
    assert alone.context == 0.0


def test_a_hits_creation_moment_from_the_store_ranks_as_its_memorys_own_and_scored_of_is_a_scored() -> None:
    """The index hands ``rank`` each memory's creation moment as a number (Hit.made), read once per change of
    the index rather than from the datetime on every search: the ranking is the one the datetimes give."""
    from dataclasses import replace

    first = memory("first", 10)
    reply = memory("reply", 10).model_copy(update={"created_at": first.created_at + timedelta(minutes=1)})
    later = memory("later", 11)
    hits = [Hit(first, 0.9, 1.0), Hit(reply, 0.4, 0.0, 0.5), Hit(later, 0.45, 0.5)]
    params = replace(PARAMS, context_weight=0.4, context_window_seconds=1800)
    timed = [replace(h, made=h.memory.created_at.timestamp()) for h in hits]
    assert rank(timed, NOW, params) == rank(hits, NOW, params)
    # a wrong moment is believed: the reply made a day later has no sitting to borrow from
    apart = [timed[0], replace(timed[1], made=timed[1].made + 86400.0), timed[2]]
    assert {s.memory.memory_id: s.context for s in rank(apart, NOW, params)}["reply"] == 0.0
    made = Scored.of(first, 0.9, 1.0, 0.8, 0.5, 0.7, 0.1, 0.0)
    assert made == Scored(first, 0.9, 1.0, 0.8, 0.5, 0.7, 0.1, 0.0)


def test_hit_of_is_a_hit_and_rank_takes_each_hits_semantic_as_one_at_a_time() -> None:
    """Hit.of (the index's hits, made without the frozen dataclass's __init__) is the Hit the constructor makes,
    and the array form of the sentence mix in ``rank`` gives each hit exactly what ``semantic`` gives it, with
    and without a best sentence (the order of the floats is the order of the answers)."""
    import random

    first = memory("first")
    assert Hit.of(first, 0.4, 1.5, 0.6, 0.2, None, 3.0) == Hit(first, 0.4, 1.5, 0.6, 0.2, None, 3.0)
    assert Hit.of(first, 0.4, 0.0) == Hit(first, 0.4, 0.0)
    rng = random.Random(5)
    for _ in range(50):
        hits = [Hit.of(memory(f"m{i}"), rng.uniform(-0.2, 1.0), 0.0,
                       None if rng.random() < 0.4 else rng.uniform(-0.2, 1.0)) for i in range(rng.randint(1, 30))]
        weight = rng.choice([0.0, 0.3, 0.7, 1.0])
        ranked = {s.memory.memory_id: s.cosine for s in rank(hits, NOW, RankingParams(
            a=0.6, b=0.25, c=0.15, importance=0.0, access=0.0, lexical_weight=0.0, recency_lambda=0.01,
            sentence_weight=weight))}
        assert ranked == {h.memory.memory_id: semantic(h, weight) for h in hits}
