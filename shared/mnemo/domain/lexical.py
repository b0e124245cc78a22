"""BM25 over one user's memories, kept in memory and updated incrementally."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np
import numpy.typing as npt


class Bm25Index:
    """Okapi BM25 with postings, so a query costs time in its terms' postings only."""

    def __init__(self, k1: float = 1.2, b: float = 0.75) -> None:
        self.k1 = k1
        self.b = b
        self._postings: dict[str, dict[str, int]] = {}
        self._lengths: dict[str, int] = {}
        self._doc_terms: dict[str, tuple[str, ...]] = {}
        self._total_length = 0
        # each searched term's posting as arrays over one numbering of the documents (``score_array``): kept
        # until a document is added or removed, or the numbering changes
        self._arrays: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]] = {}
        self._numbering: Mapping[str, int] | None = None
        self._norms: npt.NDArray[np.float64] = np.zeros(0)

    def __len__(self) -> int:
        return len(self._lengths)

    def add(self, doc_id: str, doc_terms: Iterable[str]) -> None:
        if doc_id in self._lengths:
            self.remove(doc_id)
        self._numbering = None
        counts = Counter(doc_terms)
        length = sum(counts.values())
        self._lengths[doc_id] = length
        self._doc_terms[doc_id] = tuple(counts)
        self._total_length += length
        for term, tf in counts.items():
            self._postings.setdefault(term, {})[doc_id] = tf

    def remove(self, doc_id: str) -> None:
        length = self._lengths.pop(doc_id, None)
        if length is None:
            return
        self._numbering = None
        self._total_length -= length
        for term in self._doc_terms.pop(doc_id, ()):
            posting = self._postings.get(term)
            if posting is not None:
                posting.pop(doc_id, None)
                if not posting:
                    del self._postings[term]

    def common(self, query_terms: Iterable[str], share: float) -> frozenset[str]:
        """The terms found in more than ``share`` of the documents."""
        n = len(self._lengths)
        return frozenset(t for t in query_terms if len(self._postings.get(t, ())) > share * n)

    def score(self, query_terms: Iterable[str]) -> dict[str, float]:
        n = len(self._lengths)
        if n == 0:
            return {}
        avg = self._total_length / n or 1.0
        scores: dict[str, float] = {}
        for term in set(query_terms):
            posting = self._postings.get(term)
            if not posting:
                continue
            idf = math.log(1.0 + (n - len(posting) + 0.5) / (len(posting) + 0.5))
            for doc_id, tf in posting.items():
                norm = self.k1 * (1.0 - self.b + self.b * self._lengths[doc_id] / avg)
                scores[doc_id] = scores.get(doc_id, 0.0) + idf * tf * (self.k1 + 1.0) / (tf + norm)
        return scores

    def score_array(self, query_terms: Iterable[str], numbering: Mapping[str, int],
                    size: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
        """``score`` over the documents numbered by ``numbering`` (every document, each to a place below
        ``size``): the scores (0 where no term is found) and which documents a term was found in.

        The same floats as ``score``, summed in the same order of terms; a search's terms recur (a user's
        names, their topics), so each term's posting becomes arrays once and is kept until the documents
        or their numbering change, where ``score`` walked it in Python every time."""
        if numbering is not self._numbering:
            self._arrays = {}
            self._numbering = numbering
            n = len(self._lengths)
            avg = self._total_length / n if n else 1.0
            avg = avg or 1.0
            lengths = np.zeros(size)
            for doc_id, length in self._lengths.items():
                lengths[numbering[doc_id]] = length
            # the same expression as ``score``'s, element by element
            self._norms = self.k1 * (1.0 - self.b + self.b * lengths / avg)
        scores = np.zeros(size)
        found = np.zeros(size, dtype=np.bool_)
        n = len(self._lengths)
        for term in set(query_terms):
            arrays = self._arrays.get(term)
            if arrays is None:
                posting = self._postings.get(term)
                if not posting:
                    continue
                arrays = (np.fromiter((numbering[d] for d in posting), dtype=np.int64, count=len(posting)),
                          np.fromiter(posting.values(), dtype=np.float64, count=len(posting)))
                self._arrays[term] = arrays
            places, tf = arrays
            idf = math.log(1.0 + (n - len(places) + 0.5) / (len(places) + 0.5))
            scores[places] += idf * tf * (self.k1 + 1.0) / (tf + self._norms[places])
            found[places] = True
        return scores, found
