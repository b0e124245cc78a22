"""`make train-query-slots`: the committed requests train the model that ships, and it is the one shipped."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from mnemo.bootstrap import SLOT_AFFINITY_PATH
from mnemo.domain.extraction.slots import SLOTS
from mnemo.domain.slot_affinity import SlotAffinity
from mnemo.training import query_slots


def test_every_labelled_request_names_slots_of_the_vocabulary() -> None:
    files = query_slots.training_files()
    assert len(files) >= 2
    cases = query_slots.load_all(files)
    assert len(cases) >= 2000
    assert all(slots <= set(SLOTS) for _text, slots in cases)
    assert sum(not slots for _text, slots in cases) >= 50  # requests no fact helps teach it when to say none


def test_the_shipped_model_is_what_the_committed_data_trains(tmp_path: Path) -> None:
    out = tmp_path / "query_slots.npz"
    assert query_slots.main(["--out", str(out)]) == 0
    trained, shipped = SlotAffinity.load(out), SlotAffinity.load(SLOT_AFFINITY_PATH)
    assert trained.slots == shipped.slots
    assert trained.version == shipped.version
    np.testing.assert_allclose(trained.weights, shipped.weights, atol=1e-3)
    np.testing.assert_allclose(trained.bias, shipped.bias, atol=1e-3)
