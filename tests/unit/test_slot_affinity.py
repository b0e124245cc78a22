from pathlib import Path

import numpy as np
import pytest

from mnemo.domain.slot_affinity import SlotAffinity


def model() -> SlotAffinity:
    # two slots over a 3-dimensional space: the first axis means pets, the second food
    weights = np.array([[8.0, 0.0, 0.0], [0.0, 8.0, 0.0]], dtype=np.float32)
    return SlotAffinity(["pet", "diet"], weights, np.array([-4.0, -4.0], dtype=np.float32), "minilm:2")


def test_a_request_near_a_slots_direction_needs_that_slot_only() -> None:
    needed = model().probabilities(np.array([1.0, 0.0, 0.0], dtype=np.float32))
    assert needed["pet"] > 0.95
    assert needed["diet"] < 0.05


def test_only_slots_needed_surely_enough_gain_relevance() -> None:
    m = model()
    vector = np.array([0.0, 1.0, 0.0], dtype=np.float32)
    needed = m.probabilities(vector)
    assert m.gains(vector, boost=0.2, at_least=0.5) == pytest.approx({"diet": 0.2 * needed["diet"]})
    assert m.gains(vector, boost=0.2, at_least=0.999) == {}


def test_a_slot_needed_lends_its_need_to_its_kindred_slots() -> None:
    # likes, dislikes and owns over a 3-dimensional space: a request about food needs what the user
    # dislikes as much as what they like, though its vector points at likes only
    weights = np.array([[8.0, 0.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 8.0]], dtype=np.float32)
    m = SlotAffinity(["likes", "dislikes", "owns"], weights, np.full(3, -4.0, dtype=np.float32), "minilm:3")
    vector = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    needed = m.probabilities(vector)
    assert needed["dislikes"] < 0.05
    gains = m.gains(vector, boost=0.2, at_least=0.5)
    either = 1 - (1 - needed["likes"]) * (1 - needed["dislikes"])
    assert gains == pytest.approx({"likes": 0.2 * either, "dislikes": 0.2 * either})


def test_kindred_slots_each_short_of_the_threshold_are_needed_together() -> None:
    # "how do i add a subcommand": the user's project and its stack each a little under 0.5 likely, so that
    # neither gained; that one of the project's facts helps is 0.75 likely
    weights = np.array([[8.0, 0.0, 0.0], [0.0, 8.0, 0.0], [0.0, 0.0, 8.0]], dtype=np.float32)
    m = SlotAffinity(["current_project", "project_stack", "pet"], weights, np.full(3, -4.0, dtype=np.float32),
                     "minilm:3")
    vector = np.array([0.49, 0.49, 0.0], dtype=np.float32)
    needed = m.probabilities(vector)
    assert needed["current_project"] < 0.5
    assert needed["project_stack"] < 0.5
    gains = m.gains(vector, boost=0.2, at_least=0.5)
    assert set(gains) == {"current_project", "project_stack"}
    assert gains["project_stack"] == pytest.approx(0.2 * (1 - (1 - needed["current_project"]) ** 2))


def test_the_model_survives_a_round_trip_through_its_file(tmp_path: Path) -> None:
    path = tmp_path / "affinity.npz"
    model().save(path)
    again = SlotAffinity.load(path)
    vector = np.array([0.3, 0.7, 0.1], dtype=np.float32)
    assert again.probabilities(vector) == pytest.approx(model().probabilities(vector))
    assert (again.slots, again.version) == (["pet", "diet"], "minilm:2")


def test_weights_that_do_not_match_the_slots_are_refused() -> None:
    with pytest.raises(ValueError):
        SlotAffinity(["pet"], np.zeros((2, 3), dtype=np.float32), np.zeros(2, dtype=np.float32), "v")


def test_it_applies_only_over_the_query_vectors_it_was_trained_on() -> None:
    from mnemo.domain.slot_affinity import query_space

    trained = SlotAffinity(["pet"], np.zeros((1, 3), dtype=np.float32), np.zeros(1, dtype=np.float32),
                           f"{query_space('minilm', True)}:120")
    assert trained.fits(query_space("minilm", True), 3)
    assert not trained.fits(query_space("minilm", False), 3)  # the packaged model for queries: other vectors
    assert not trained.fits(query_space("amazon.titan-embed-text-v2:0", True), 3)  # Titan's id has a colon
    assert not trained.fits(query_space("minilm", True), 1024)


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="slot affinity model"):
        SlotAffinity.load(tmp_path / "nowhere.npz")


def test_a_dependants_facts_are_needed_where_the_users_family_is() -> None:
    # family_care has no model of its own: a request that needs the user's family (a lunchbox, a family meal)
    # needs their children's allergies and school; one that needs only the user's diet does not
    weights = np.array([[8.0, 0.0, 0.0], [0.0, 8.0, 0.0]], dtype=np.float32)
    m = SlotAffinity(["family", "diet"], weights, np.full(2, -4.0, dtype=np.float32), "minilm:3")
    family_meal = np.array([1.0, 1.0, 0.0], dtype=np.float32)
    gains = m.gains(family_meal, boost=0.2, at_least=0.5)
    assert gains["family_care"] == pytest.approx(gains["family"])
    assert "family_care" not in m.gains(np.array([0.0, 1.0, 0.0], dtype=np.float32), boost=0.2, at_least=0.5)


def test_a_request_that_needs_the_users_plans_needs_their_deadlines_and_not_the_other_way() -> None:
    # "plan my last 5 weeks before the race": the race day may have been read as a deadline; "how do I set up CI
    # before my deadline" needs no plan of the user's
    weights = np.array([[8.0, 0.0, 0.0], [0.0, 8.0, 0.0]], dtype=np.float32)
    m = SlotAffinity(["plan", "project_deadline"], weights, np.full(2, -4.0, dtype=np.float32), "minilm:3")
    planning = np.array([1.0, 0.0, 0.0], dtype=np.float32)
    gains = m.gains(planning, boost=0.2, at_least=0.5)
    assert gains["project_deadline"] == pytest.approx(gains["plan"])
    assert "plan" not in m.gains(np.array([0.0, 1.0, 0.0], dtype=np.float32), boost=0.2, at_least=0.5)
