from datetime import UTC, datetime, timedelta

import pytest

from mnemo.domain.models import Category, Memory, Scope
from mnemo.domain.policy import PolicyTable
from mnemo.domain.profile_builder import build_profile
from mnemo.errors import ConfigurationError
from mnemo.settings import Settings

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def test_spec_numbers_are_the_defaults() -> None:
    s = Settings()
    assert (s.weights.a, s.weights.b, s.weights.c) == (0.6, 0.25, 0.15)
    assert (s.debounce_turns, s.debounce_quiet_seconds) == (5, 30.0)
    assert (s.token_budget, s.token_budget_cap) == (500, 2000)
    assert s.conflict_similarity == 0.85
    assert s.max_active_memories == 1000
    assert s.retention_days["preference"] == 180
    assert s.retention_days["episodic"] == 90
    assert s.retention_days["constraint"] is None
    assert s.profile_max_bytes == 2048


def test_settings_come_from_the_environment() -> None:
    s = Settings.from_env({"MNEMO_DEBOUNCE_TURNS": "3", "MNEMO_WEIGHTS": '{"a": 0.5, "b": 0.3, "c": 0.2}',
                           "MNEMO_API_KEYS": "t1=k1, t2=k2"})
    assert s.debounce_turns == 3
    assert s.weights.a == 0.5
    assert s.tenant_keys() == {"k1": "t1", "k2": "t2"}


@pytest.mark.parametrize("env", [{"MNEMO_DEBOUNCE_TURNS": "zero"}, {"MNEMO_WEIGHTS": "{"},
                                 {"MNEMO_TOKEN_BUDGET": "5000"}, {"MNEMO_UNKNOWN_THING": "1"}])
def test_bad_settings_are_refused_with_a_clear_error(env: dict[str, str]) -> None:
    if "MNEMO_UNKNOWN_THING" in env:
        assert Settings.from_env(env) == Settings()  # unknown variables are not ours to judge
        return
    with pytest.raises(ConfigurationError):
        Settings.from_env(env)


def test_a_retention_given_for_some_categories_keeps_the_others_defaults() -> None:
    # MNEMO_RETENTION_DAYS='{"episodic": 30}' once replaced the whole map: every category it left out
    # (preference, project_fact, task_state, tool_result, summary) then never expired
    s = Settings.from_env({"MNEMO_RETENTION_DAYS": '{"episodic": 30, "constraint": 365}'})
    assert s.retention_days == {**Settings().retention_days, "episodic": 30, "constraint": 365}
    policy = PolicyTable(s.retention_days)
    assert policy.expiry_for(Category.PREFERENCE, NOW) == NOW + timedelta(days=180)
    assert policy.expiry_for(Category.EPISODIC, NOW) == NOW + timedelta(days=30)


def test_tuning_bounds_given_for_some_weights_keep_the_others_defaults() -> None:
    s = Settings.from_env({"MNEMO_TUNING_BOUNDS": '{"a": [0.5, 0.7]}'})
    assert s.tuning_bounds == {"a": (0.5, 0.7), "b": (0.05, 0.4), "c": (0.05, 0.3)}


@pytest.mark.parametrize(("env", "message"), [
    # a misspelt category was kept and changed nothing
    ({"MNEMO_RETENTION_DAYS": '{"prefrence": 30}'}, "retention_days: unknown category 'prefrence' (known: "),
    ({"MNEMO_RETENTION_DAYS": '{"episodic": 0}'}, "retention_days: episodic: 0 days; at least 1, or null"),
    ({"MNEMO_RETENTION_DAYS": '{"episodic": -5}'}, "retention_days: episodic: -5 days; at least 1, or null"),
    ({"MNEMO_RETENTION_DAYS": '["episodic"]'}, "retention_days: Input should be a valid dictionary"),
    ({"MNEMO_RECENCY_EXEMPT": '["constrant"]'}, "recency_exempt: unknown category 'constrant' (known: "),
    # `mnemo tune` failed later with a KeyError
    ({"MNEMO_TUNING_BOUNDS": '{"d": [0.1, 0.2]}'}, "tuning_bounds: unknown weight 'd' (known: a, b, c)"),
    ({"MNEMO_TUNING_BOUNDS": '{"a": [0.8, 0.4]}'}, "tuning_bounds: a: [0.8, 0.4]; bounds go from low to high"),
    ({"MNEMO_TUNING_BOUNDS": '{"a": [0.4, 1.5]}'}, "tuning_bounds: a: [0.4, 1.5]; bounds go from low to high"),
])
def test_a_bad_category_or_weight_map_is_refused_naming_the_entry(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_env(env)
    assert str(caught.value).startswith(f"invalid settings: {message}")


def test_a_rule_across_settings_is_reported_without_an_empty_field_name() -> None:
    with pytest.raises(ConfigurationError) as caught:
        Settings.from_env({"MNEMO_TOKEN_BUDGET": "3000"})
    assert str(caught.value) == "invalid settings: token_budget must not exceed token_budget_cap"


def test_bad_api_keys_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        Settings(api_keys="nonsense").tenant_keys()


def test_policy_expiry_by_category() -> None:
    policy = PolicyTable(Settings().retention_days)
    assert policy.expiry_for(Category.EPISODIC, NOW) == NOW + timedelta(days=90)
    assert policy.expiry_for(Category.CONSTRAINT, NOW) is None
    assert policy.expiry_for(Category.CONSTRAINT, NOW, Scope.SESSION, timedelta(hours=24)) == NOW + timedelta(hours=24)
    assert not policy[Category.PREFERENCE].summarisable
    assert policy[Category.EPISODIC].summarisable


def fact(subject: str, content: str, category: Category = Category.PREFERENCE) -> Memory:
    return Memory(memory_id=subject, tenant_id="t", user_id="u", category=category, subject=subject,
                  content=content, confidence=0.9, created_at=NOW, updated_at=NOW, last_confirmed_at=NOW)


def test_profile_is_derived_from_facts_and_stays_small() -> None:
    facts = [fact("name", "User's name is Ana Souza.", Category.BIOGRAPHICAL),
             fact("location", "User lives in Lisbon.", Category.BIOGRAPHICAL),
             fact("allergy:nut", "User is allergic to nuts.", Category.CONSTRAINT)]
    facts += [fact(f"likes:{i}", f"User likes a long and detailed thing number {i} " * 3) for i in range(80)]
    profile = build_profile(facts, {}, NOW, 2048)
    assert profile.name == "Ana Souza"
    assert profile.location == "Lisbon"
    assert profile.constraints == ["User is allergic to nuts."]
    assert len(profile.model_dump_json()) <= 2048


def test_stored_times_sort_as_text() -> None:
    from mnemo.clock import iso

    whole, fraction = datetime(2026, 1, 1, tzinfo=UTC), datetime(2026, 1, 1, 0, 0, 0, 1, tzinfo=UTC)
    assert iso(whole) < iso(fraction)
    assert len(iso(whole) or "") == len(iso(fraction) or "")
