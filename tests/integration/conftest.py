"""Fixtures the integration tests share."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mnemo.bootstrap import Mnemo, learned_extractor
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.settings import Settings
from tests.integration.conversation_steps import learned_home


@pytest.fixture(scope="session")
def extractor() -> LearnedExtractor:
    """The learned extractor with the shipped models and default settings (stateless between messages)."""
    return learned_extractor(Settings())


@pytest.fixture
def learned_service(tmp_path: Path) -> Iterator[Mnemo]:
    """The local home with the learned extractor on a manual clock (conversation_steps.learned_home)."""
    with learned_home(tmp_path) as built:
        yield built
