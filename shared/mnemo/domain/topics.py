"""Topics: episodic memories grouped by what they are about, before anything is summarised (R9).

Similarity between two episodes is their embeddings' cosine, raised a little when they share a slot
(the extractor gave both the same subject) or a named entity (a place, a person). Groups are formed
by average linkage: two groups join only while the mean similarity across them stays above the
threshold, so one bridging pair (a run and a bike ride along the same river) cannot chain two
topics together the way single linkage or greedy seeds do.

Average linkage over n memories costs O(n^2) per merge; near-duplicates (the same template with a
different number, above ``tight``) are joined first with union-find, so the linkage loop runs over a
few dozen groups even for a user at the 1,000-memory cap.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from mnemo.domain.models import Memory

# A capitalised word or run of words that is not the first word of the sentence: a place or a person.
_ENTITY = re.compile(r"(?<=[a-z,:;] )(?:the )?([A-Z][\w'’-]+(?: [A-Z][\w'’-]+)*)")


def entities(text: str) -> set[str]:
    return {m.lower() for m in _ENTITY.findall(text)}


def similarity(memories: Sequence[Memory], vectors: npt.NDArray[np.float32], slot_bonus: float,
               entity_bonus: float) -> npt.NDArray[np.float32]:
    """Pairwise similarity: cosine, plus a bonus for a shared slot and for a shared named entity."""
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    sims = vectors @ vectors.T
    codes: dict[str, int] = {}
    subject = np.asarray([codes.setdefault(m.subject, len(codes)) for m in memories])
    np.add(sims, np.float32(slot_bonus), out=sims, where=subject[:, None] == subject[None, :])
    names: dict[str, int] = {}
    rows = [[names.setdefault(e, len(names)) for e in entities(m.content)] for m in memories]
    if names:
        incidence = np.zeros((len(memories), len(names)), dtype=np.float32)
        for i, row in enumerate(rows):
            incidence[i, row] = 1.0
        np.add(sims, np.float32(entity_bonus), out=sims, where=(incidence @ incidence.T) > 0)
    return sims


def _near_duplicates(sims: npt.NDArray[np.float32], tight: float) -> list[list[int]]:
    """Connected components of the ``sims >= tight`` graph, grown a whole frontier at a time."""
    near = sims >= tight
    free = np.ones(len(sims), dtype=bool)
    groups: list[list[int]] = []
    while free.any():
        member = np.zeros(len(sims), dtype=bool)
        frontier = member.copy()
        frontier[int(np.argmax(free))] = True
        while frontier.any():
            member |= frontier
            frontier = near[frontier].any(axis=0) & ~member & free
        free &= ~member
        groups.append([int(i) for i in np.flatnonzero(member)])
    return groups


def find_topics(memories: Sequence[Memory], vectors: npt.NDArray[np.float32], threshold: float,
                min_size: int = 1, *, slot_bonus: float = 0.1, entity_bonus: float = 0.05,
                tight: float = 0.85) -> list[list[int]]:
    """Indices of each topic of at least ``min_size`` members, largest first; a memory is in one topic."""
    if not len(memories):
        return []
    sims = similarity(memories, vectors, slot_bonus, entity_bonus)
    groups = _near_duplicates(sims, tight)
    membership = np.zeros((len(memories), len(groups)), dtype=np.float32)
    for g, members in enumerate(groups):
        membership[members, g] = 1.0
    total = membership.T @ sims @ membership  # sum of similarities between every two groups
    sizes = membership.sum(axis=0)
    alive = np.ones(len(groups), dtype=bool)
    while alive.sum() > 1:
        mean = total / np.outer(sizes, sizes)
        mean[~alive, :] = -np.inf
        mean[:, ~alive] = -np.inf
        np.fill_diagonal(mean, -np.inf)
        flat = int(np.argmax(mean))
        a, b = divmod(flat, len(groups))
        if mean[a, b] < threshold:
            break
        total[a, :] += total[b, :]
        total[:, a] += total[:, b]
        sizes[a] += sizes[b]
        alive[b] = False
        groups[a].extend(groups[b])
    topics = [sorted(groups[g]) for g in np.flatnonzero(alive) if len(groups[g]) >= min_size]
    return sorted(topics, key=lambda t: (-len(t), t[0]))
