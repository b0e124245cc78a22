"""What the tagger read in a piece of a user's text, kept so that the same piece is not read twice.

A conversation's turns are read by its extraction job and read again when the rolling summary folds
them (SessionService.checkpoint runs the extractor over the older turns at every checkpoint), and a
job that finds its turns changed under the user's lock reads them again: each time the encoder and
the tagger gave the same spans for the same words, at ~8 ms of CPU a piece. The spans of a piece
depend on nothing but its words and the extractor's fixed settings (the encoder reads each text in
a run of its own, so no other text changes its states), so a kept reading is exactly what reading it
again would give.

Held per tenant and user, by the piece's SHA-256 digest (never its text), and only while a service
says whose text the extractor reads (``reading_for``): a remember or an import in a request worker
keeps nothing. One of the process's user caches (mnemo.services.user_caches, wired in bootstrap): an
erase empties it of the user in every process (in `mnemo serve` the jobs process holds these).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from mnemo.domain.extraction.tagger import Span
from mnemo.domain.user_entries import drop_user, owners_of

# whose text the extractor reads now (tenant, user), set by the services that read a user's turns
_READER: ContextVar[tuple[str, str] | None] = ContextVar("mnemo_extraction_reader", default=None)


@contextmanager
def reading_for(tenant_id: str, user_id: str) -> Iterator[None]:
    """Within this block the extractor reads ``user_id``'s text and may keep and reuse its readings."""
    token = _READER.set((tenant_id, user_id))
    try:
        yield
    finally:
        _READER.reset(token)


def current_reader() -> tuple[str, str] | None:
    return _READER.get()


class PieceReadings:
    """LRU of a piece's spans (offsets in the piece), per tenant and user, at most ``size`` pieces."""

    cache_name = "extraction_readings"

    def __init__(self, size: int) -> None:
        self._size = size
        self._kept: OrderedDict[tuple[str, str, bytes], tuple[Span, ...]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(reader: tuple[str, str], piece: str) -> tuple[str, str, bytes]:
        return reader[0], reader[1], hashlib.sha256(piece.encode("utf-8", "surrogatepass")).digest()

    def get(self, key: tuple[str, str, bytes]) -> tuple[Span, ...] | None:
        with self._lock:
            found = self._kept.get(key)
            if found is None:
                self.misses += 1
                return None
            self._kept.move_to_end(key)
            self.hits += 1
            return found

    def put(self, key: tuple[str, str, bytes], spans: tuple[Span, ...]) -> None:
        if self._size <= 0:
            return
        with self._lock:
            self._kept[key] = spans
            self._kept.move_to_end(key)
            while len(self._kept) > self._size:
                self._kept.popitem(last=False)

    def owners(self) -> set[tuple[str, str]]:
        with self._lock:
            return owners_of(self._kept)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._lock:
            drop_user(self._kept, tenant_id, user_id)

    def __len__(self) -> int:
        return len(self._kept)
