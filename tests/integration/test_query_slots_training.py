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
    # judged by what the two say, not by their weights: the query model's floats differ in their last bits from
    # one CPU to another, and so do the weights fitted on them (by more than 1e-3 on another machine)
    from mnemo.bootstrap import shared_embedder
    from mnemo.settings import Settings

    embedder = shared_embedder(Settings())
    requests = [text for text, _slots in query_slots.load_all(query_slots.training_files())]
    x = np.vstack([embedder.embed_queries([text]) for text in requests]).astype(np.float32)

    def chances(model: SlotAffinity) -> np.ndarray:
        return np.asarray(1.0 / (1.0 + np.exp(-(x @ model.weights.T + model.bias))))

    now, then = chances(trained), chances(shipped)
    assert float(np.abs(now - then).mean()) < 0.01  # this machine: 0.0003
    assert float(np.mean((now >= 0.5) == (then >= 0.5))) >= 0.99  # this machine: 0.9999
