"""A home said before the user lives there comes true later: a house bought, then "Moved in." (the local home with
the learned extractor, one message a day)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo
from mnemo.domain.models import Status
from tests.integration.conversation_steps import learned_home, say_next_day

TENANT, USER = "t-homes", "u-homes"


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Mnemo]:
    with learned_home(tmp_path) as built:
        yield built


def _home(service: Mnemo) -> list[str]:
    now = service.ports.clock.now()
    return [m.content for m in service.ports.memories.all_for_user(TENANT, USER)
            if m.subject == "home_location" and m.is_live(now) and m.status is Status.ACTIVE]


def test_a_house_bought_is_the_home_once_the_user_says_they_moved_in(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "Hello. I'm Harold, 74, farm corn and soybeans outside Boone, Iowa.")
    say_next_day(service, TENANT, USER, "c2", "WE BOUGHT A LITTLE HOUSE IN AMES. No stairs, close to the hospital. "
                                              "Moving end of the month.")
    assert [h for h in _home(service) if "ames" in h.lower()] == []  # bought, not yet lived in
    say_next_day(service, TENANT, USER, "c3", "Moved in. House is fine, the porch needs paint.")
    assert [h.lower() for h in _home(service)] == ["user lives in ames."]


def test_moving_in_with_someone_makes_no_home_of_a_house_bought(service: Mnemo) -> None:
    say_next_day(service, TENANT, USER, "c1", "Hello. I'm Harold, 74, farm corn and soybeans outside Boone, Iowa.")
    say_next_day(service, TENANT, USER, "c2", "WE BOUGHT A LITTLE HOUSE IN AMES. No stairs, close to the hospital.")
    say_next_day(service, TENANT, USER, "c3", "we moved in with my sister while the roof is fixed, it's chaos")
    assert [h for h in _home(service) if "ames" in h.lower()] == []
