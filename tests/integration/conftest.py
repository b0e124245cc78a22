"""Fixtures the integration tests share."""

from __future__ import annotations

import pytest

from mnemo.bootstrap import learned_extractor
from mnemo.domain.extraction.pipeline import LearnedExtractor
from mnemo.settings import Settings


@pytest.fixture(scope="session")
def extractor() -> LearnedExtractor:
    """The learned extractor with the shipped models and default settings (stateless between messages)."""
    return learned_extractor(Settings())
