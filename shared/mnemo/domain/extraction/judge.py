"""The judge: a learned second look at each fact the learned extractor proposes for a message.

The tagger reads word pieces; many of its wrong facts are only visible whole: the same value again in a
second slot, a piece of a value, a value the labels would not call the user's fact. The judge reads each
candidate with what the pipeline already knows of it (the tagger's vectors of the value and the text and
its own figures, see tagger.reading_features; the slot and category; how the candidate overlaps the others
found in the same message) and says how likely it is to be a fact the user stated. Candidates below
``keep_at_least`` are not stored (rejection reason "judged"). Its weights are package data written by
``mnemo.training.judge`` from what taggers that had not seen a message found in it (out of fold).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from mnemo.domain.extraction.candidates import Candidate
from mnemo.domain.extraction.slots import SLOTS
from mnemo.domain.extraction.tagger import Mlp
from mnemo.domain.models import Category
from mnemo.domain.text import terms

Array = npt.NDArray[np.float32]
JUDGED = "judged"
# a close one's fact (family_life) is found as a dependant's is, around the tagger's reading of what is said of
# them, and the judge reads it as one: its one-hot is the care slot's (the judge was trained before it existed)
_JUDGED_AS = {"family_life": "family_care"}
JUDGED_SLOTS = sorted(set(SLOTS) - set(_JUDGED_AS))
_CATEGORIES = list(Category)
# the candidate's own figures and its overlap with the message's others (see judge_rows)
OWN_FIGURES = 15


def judged(candidate: Candidate) -> bool:
    """A candidate the judge reads: stored, found by the tagger, not the user's explicit word, not only a retraction."""
    return (candidate.should_store and candidate.reading is not None and not candidate.only_to_retire
            and candidate.confidence < 1.0)


def judge_rows(candidates: Sequence[Candidate], message: str, width: int) -> Array:
    """One row per candidate of one message: the tagger's reading (``width`` numbers, zeros when none), the slot
    and category one-hot, and the candidate's own figures and overlap with the message's other stored facts."""
    stored = [c for c in candidates if c.should_store]
    words = [set(terms(c.content)) - {"user"} for c in stored]
    rows = []
    for c in candidates:
        reading = c.reading if isinstance(c.reading, np.ndarray) else np.zeros(width, np.float32)
        slot = _JUDGED_AS.get(c.tags[0], c.tags[0]) if c.tags else ""
        one_hot = np.zeros(len(JUDGED_SLOTS) + len(_CATEGORIES), np.float32)
        if slot in SLOTS:
            one_hot[JUDGED_SLOTS.index(slot)] = 1.0
        one_hot[len(JUDGED_SLOTS) + _CATEGORIES.index(c.category)] = 1.0
        mine = set(terms(c.content)) - {"user"}
        others = [(o, w) for o, w in zip(stored, words, strict=True) if o is not c]
        shared = [len(mine & w) / max(len(mine), 1) for _o, w in others]
        same_slot = sum(1 for o, _w in others if o.tags[:1] == c.tags[:1])
        same_category = sum(1 for o, _w in others if o.category is c.category)
        figures = np.array([
            float(c.polarity), c.confidence, float(c.high_stakes), float(c.correction),
            float(len(c.tags) > 1), np.log1p(len(others)), max(shared, default=0.0),
            sum(1 for s in shared if s >= 0.5), float(any(mine and mine <= w for _o, w in others)),
            float(any(w and w < mine for _o, w in others)), float(same_slot), float(same_category),
            np.log1p(len(mine)), np.log1p(len(c.evidence.split())), np.log1p(len(message)),
        ], dtype=np.float32)
        rows.append(np.concatenate([reading.astype(np.float32), one_hot, figures]))
    return np.vstack(rows) if rows else np.zeros((0, width + len(JUDGED_SLOTS) + len(_CATEGORIES) + OWN_FIGURES),
                                                 np.float32)


class CandidateJudge:
    """Softmax MLPs (class 1: a fact the user stated) over judge_rows, fitted from different seeds and averaged."""

    def __init__(self, nets: Sequence[Mlp], width: int, version: str) -> None:
        self.nets = list(nets)
        self.width = width  # the tagger reading's length the rows were built with
        self.version = version

    @classmethod
    def load(cls, path: Path) -> CandidateJudge:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        count = sum(1 for key in arrays if key.startswith("judge") and key.endswith("_w1"))
        return cls([Mlp.from_arrays(arrays, f"judge{n}") for n in range(count)], int(arrays["width"]),
                   str(arrays["version"]))

    def save(self, path: Path) -> None:
        nets: dict[str, Array] = {}
        for n, net in enumerate(self.nets):
            nets.update(net.arrays(f"judge{n}"))
        np.savez_compressed(path, allow_pickle=False, width=np.array(self.width), version=np.array(self.version),
                            **nets)

    def probabilities(self, rows: Array) -> Array:
        if not len(rows):
            return np.zeros(0, np.float32)
        out: Array = np.mean([net.probabilities(rows)[:, 1] for net in self.nets], axis=0, dtype=np.float32)
        return out

    def judge(self, candidates: list[Candidate], message: str, keep_at_least: float) -> list[Candidate]:
        """The candidates, those it reads (see ``judged``) and finds under ``keep_at_least`` no longer stored."""
        if keep_at_least <= 0.0 or not any(judged(c) for c in candidates):
            return candidates
        likely = self.probabilities(judge_rows(candidates, message, self.width))
        for c, p in zip(candidates, likely, strict=True):
            if judged(c) and p < keep_at_least:
                c.should_store, c.rejection_reason = False, JUDGED
        return candidates
