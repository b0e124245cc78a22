"""A learned judge of whether a message ends a stored fact ("the cardiologist moved me from warfarin to apixaban"
ends "User's health: warfarin."; "my mum is on warfarin too" does not).

The tagger finds values and the write path retires what a new value replaces in a single-valued slot, or what a
negated value names. What it cannot see is a change said any other way: a switch in a slot that holds many values,
an ending that names the old value only by what replaced it ("I'm on Helix now for editing" after "uses neovim"),
a correction, a lifted instruction. This judge reads the pair: the fact's value pieces (from the fact's statement
encoded alone, cached per statement) against the message's pieces (encoded once per message) through the same
fine-tuned MiniLM the tagger reads. Its features are the value, the part of the message most like it (soft
alignment) and the words around that part, so "from warfarin to" and "no more tables" are read where they stand.
The weights are package data written by ``mnemo.training.ending`` from committed labelled pairs; this module only
runs them (numpy).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from mnemo.domain.extraction.slots import FOUND_AROUND_THE_TAGGER, SLOTS
from mnemo.domain.extraction.tagger import Array, Mlp, TokenEncoder, TokenStates
from mnemo.domain.user_entries import drop_user, owners_of

# the pieces around the part of the message most like the value that the features read (where "from", "to",
# "no longer", "now", "instead" stand)
WINDOW = 4
# how sharply the alignment picks the message's pieces most like the value (cosine x this, then softmax)
SHARPNESS = 10.0
# the slots the judge was trained over: not family_care, whose statements have no form of their own
_JUDGED = {name: slot for name, slot in SLOTS.items() if name not in FOUND_AROUND_THE_TAGGER}
_SLOT_NAMES = sorted(_JUDGED)
_FEATURE_SCALARS = 4


def _template(affirm: str) -> re.Pattern[str]:
    before, _, after = affirm.partition("{v}")
    return re.compile(re.escape(before) + r"(?P<v>.+?)" + re.escape(after.rstrip(".")) + r"\.?$", re.DOTALL)


# the value inside a fact's statement: "User's health: warfarin." -> "warfarin"; tried longest prefix first, so
# "User's project uses" is not read as the generic event form "User {v}."
_TEMPLATES = sorted(((_template(slot.affirm), slot.name) for slot in _JUDGED.values()),
                    key=lambda t: -len(t[0].pattern))


def read_statement(statement: str) -> tuple[int, int, str]:
    """Where the value is in a fact's statement and the slot whose form it has (the whole statement and ""
    when no slot's form fits). The form, not the stored subject, names the slot, so that the answer slots,
    which share one form, are one to the judge as they are in its training pairs."""
    text = statement.rstrip()
    for pattern, slot in _TEMPLATES:
        m = pattern.match(text)
        if m:
            return m.start("v"), m.end("v"), slot
    return 0, len(text), ""


def _unit(x: Array) -> Array:
    norm = np.linalg.norm(x, axis=-1, keepdims=True)
    out: Array = (x / np.maximum(norm, 1e-6)).astype(np.float32)
    return out


def pair_features(fact: TokenStates, statement: str, message: TokenStates) -> Array:
    """One row for the pair: the value's vector, the message's soft-aligned part, the words around its best
    match, the message's mean, their product, the slot, and how closely the message matches the value."""
    start, end, slot = read_statement(statement)
    dims = fact.states.shape[1] if len(fact.offsets) else message.states.shape[1]
    inside = [i for i, (a, b) in enumerate(fact.offsets) if a < end and b > start]
    f = fact.states[inside].mean(axis=0) if inside else (
        fact.states.mean(axis=0) if len(fact.offsets) else np.zeros(dims, np.float32))
    one_hot = np.zeros(len(_SLOT_NAMES) + 1, np.float32)
    one_hot[_SLOT_NAMES.index(slot) if slot in _SLOT_NAMES else -1] = 1.0
    if not message.offsets:
        zero = np.zeros(dims, np.float32)
        return np.concatenate([f, zero, zero, zero, zero, zero, zero, one_hot,
                               np.zeros(_FEATURE_SCALARS, np.float32)])
    states = message.states
    cos = _unit(states) @ _unit(f[None, :])[0]
    weights = np.exp(SHARPNESS * (cos - cos.max()))
    weights /= weights.sum()
    aligned = (weights[:, None] * states).sum(axis=0)
    best = int(cos.argmax())
    around = states[max(0, best - WINDOW):best + WINDOW + 1].mean(axis=0)
    # the words before and after it apart: "from warfarin to" is not "to warfarin from"
    zero = np.zeros(dims, np.float32)
    before = states[max(0, best - WINDOW):best].mean(axis=0) if best else zero
    after = states[best + 1:best + WINDOW + 1].mean(axis=0) if best + 1 < len(states) else zero
    top = np.sort(cos)[::-1]
    scalars = np.array([top[0], top[:3].mean(), float(cos.mean()), min(len(message.offsets), 128) / 128.0],
                       np.float32)
    return np.concatenate([f, aligned, around, before, after, states.mean(axis=0), f * aligned, one_hot,
                           scalars]).astype(np.float32)


@dataclass
class EndingModel:
    """The pair classifier's weights (class 1: the message ends the fact) and the version they were trained as."""

    net: Mlp
    version: str

    @classmethod
    def load(cls, path: Path) -> EndingModel:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        return cls(Mlp.from_arrays(arrays, "ending"), str(arrays["version"]))

    def save(self, path: Path) -> None:
        np.savez_compressed(path, allow_pickle=False, version=np.array(self.version), **self.net.arrays("ending"))

    def probabilities(self, rows: Array) -> Array:
        out: Array = self.net.probabilities(rows)[:, 1]
        return out


class PairJudge(Protocol):
    """A second reader of a pair, reading the fact and the message jointly (a cross-encoder)."""

    def probability(self, statement: str, message: str) -> float: ...


class EndingJudge:
    """How likely each of a user's facts is to be ended by a message. Facts' token states are cached per
    tenant and user by the statement's SHA-256 (the same statements recur job after job for one user), never
    by its text, bounded by ``cache_size``; a per-user cache of the process (mnemo.services.user_caches), so an
    erase empties it of the user. A call that names no ``owner`` keeps nothing.

    With ``confirm``, a pair this judge finds at least ``confirm_from`` likely is read again jointly and gets the
    lower of the two probabilities: a fact is ended only where both readers say so (each alone ends true facts
    on the hard cases: someone else's change, "still my fave band"); the joint reader runs only on those few
    pairs, as it costs a run of the encoder per pair."""

    cache_name = "ending_facts"

    def __init__(self, encoder: TokenEncoder, model: EndingModel, cache_size: int = 4096,
                 confirm: PairJudge | None = None, confirm_from: float = 0.5) -> None:
        self.encoder = encoder
        self.model = model
        self.confirm = confirm
        self.confirm_from = confirm_from
        self.version = model.version + ("+cross" if confirm is not None else "")
        self._cache: OrderedDict[tuple[str, str, bytes], TokenStates] = OrderedDict()
        self._cache_size = cache_size
        self._cache_lock = threading.Lock()  # one judge per process; the jobs may run on several threads

    def owners(self) -> set[tuple[str, str]]:
        with self._cache_lock:
            return owners_of(self._cache)

    def forget_user(self, tenant_id: str, user_id: str) -> None:
        with self._cache_lock:
            drop_user(self._cache, tenant_id, user_id)

    def _fact_states(self, statement: str, owner: tuple[str, str] | None) -> TokenStates:
        if owner is None:
            return self.encoder.encode_tokens([statement])[0]
        key = (owner[0], owner[1], hashlib.sha256(statement.encode("utf-8", "surrogatepass")).digest())
        with self._cache_lock:
            found = self._cache.get(key)
            if found is not None:
                self._cache.move_to_end(key)
                return found
        states = self.encoder.encode_tokens([statement])[0]
        with self._cache_lock:
            self._cache[key] = states
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return states

    def probabilities(self, message: str, statements: Sequence[str],
                      owner: tuple[str, str] | None = None) -> list[float]:
        """For each fact's statement, the probability that ``message`` says it no longer holds; ``owner``
        (tenant, user): whose facts they are, so that their readings may be kept for the next message."""
        if not statements or not message.strip():
            return [0.0] * len(statements)
        said = self.encoder.encode_tokens([message])[0]
        rows = np.vstack([pair_features(self._fact_states(s, owner), s, said) for s in statements])
        chances = [float(p) for p in self.model.probabilities(rows)]
        if self.confirm is None:
            return chances
        return [min(p, self.confirm.probability(s, message)) if p >= self.confirm_from else p
                for s, p in zip(statements, chances, strict=True)]
