"""The classify step: a learned tagger over MiniLM's contextual token states.

MiniLM already runs in every home for embeddings; its last hidden layer gives each word piece a
vector that has seen the whole message. A small network over each token's vector, its
neighbours' and the message's mean tags the pieces that state a value (BIO tags per slot of
docs/slots.md), and a second head says whether each found value is negated or no longer holds.
Casual text needs no punctuation for this: "hey im dana 41 nurse based in leeds" is tagged
piece by piece. The weights are package data written by ``mnemo.training.extractor`` from
committed training data; this module only runs them (numpy, no framework).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


@dataclass(frozen=True)
class TokenStates:
    """One text's word pieces: character offsets (start, end) and contextual vectors, row for row.
    Special tokens are left out."""

    offsets: list[tuple[int, int]]
    states: Array


class TokenEncoder(Protocol):
    """Contextual token vectors for texts (MiniLM's last hidden layer)."""

    def encode_tokens(self, texts: Sequence[str]) -> list[TokenStates]:
        """One TokenStates per text, in order; empty texts give no tokens."""
        ...


# see bio_steps: chosen on the dev set, where penalties 0 / 1 / 2 / 4 gave extraction 0.800 / 0.828, 0.816 / 0.828,
# 0.828 / 0.816 and 0.828 / 0.807 (the decoding before: 0.784 / 0.831) and 1 the most dev conversation probes
BIO_PENALTY = 1.0


@dataclass(frozen=True)
class Span:
    start: int  # character offsets in the text
    end: int
    slot: str
    confidence: float
    negated: bool
    # what the tagger saw of the value, for the judge of the candidates (judge.py): see reading_features
    features: Array | None = field(default=None, compare=False, repr=False)


# the tagger's own figures about a span that reading_features appends to the span's and the text's vectors
READING_FIGURES = 9


def reading_features(states: Array, probs: Array, first: int, last: int, confidence: float,
                     negated_probability: float) -> Array:
    """A found value as the tagger read it: its pieces' mean vector, the text's mean vector, and the tagger's
    figures (its confidence, the least sure piece, the margin of its slot over the next slot, how many pieces,
    where in the text, the text's length, how likely negated)."""
    n = len(states)
    inside = probs[first:last + 1]
    tags = np.sort(inside[:, 1:], axis=1)
    margin = float(np.mean(tags[:, -1] - tags[:, -2])) if tags.shape[1] > 1 else 0.0
    figures = np.array([confidence, float(np.min(1.0 - inside[:, 0])), margin, float(last - first + 1) / 8.0,
                        first / max(n, 1), (last + 1) / max(n, 1), np.log1p(n) / 5.0, negated_probability,
                        float(np.max(inside[:, 0]))], dtype=np.float32)
    return np.concatenate([states[first:last + 1].mean(axis=0), states.mean(axis=0), figures]).astype(np.float32)


def token_features(states: Array) -> Array:
    """Each token's vector beside its neighbours' and the text's mean (the context a tag needs)."""
    n = states.shape[0]
    if n == 0:
        return np.zeros((0, states.shape[1] * 4), dtype=np.float32)
    zero = np.zeros((1, states.shape[1]), dtype=np.float32)
    before = np.vstack([zero, states[:-1]])
    after = np.vstack([states[1:], zero])
    mean = np.repeat(states.mean(axis=0, keepdims=True), n, axis=0)
    return np.hstack([states, before, after, mean]).astype(np.float32)


def verify_features(states: Array, first: int, last: int, slot: int, slots: int, confidence: float) -> Array:
    """What the verifier sees of a found value: its span's features, the tagger's slot and confidence."""
    one_hot = np.zeros(slots + 1, dtype=np.float32)
    one_hot[slot] = 1.0
    one_hot[-1] = confidence
    return np.concatenate([span_features(states, first, last), one_hot]).astype(np.float32)


def span_features(states: Array, first: int, last: int) -> Array:
    """A value's pieces, the few pieces before it (where "not", "no longer", "used to" sit) and the text."""
    inside = states[first:last + 1].mean(axis=0)
    before = states[max(0, first - 4):first].mean(axis=0) if first else np.zeros(states.shape[1], np.float32)
    after = states[last + 1:last + 4].mean(axis=0) if last + 1 < len(states) else np.zeros(states.shape[1],
                                                                                              np.float32)
    return np.concatenate([inside, before, after, states.mean(axis=0)]).astype(np.float32)


@dataclass
class Mlp:
    """One hidden layer with ReLU; inputs standardised with the training set's mean and scale."""

    mean: Array
    scale: Array
    w1: Array
    b1: Array
    w2: Array
    b2: Array

    def logits(self, x: Array) -> Array:
        hidden = np.maximum((x - self.mean) / self.scale @ self.w1 + self.b1, 0.0)
        out: Array = hidden @ self.w2 + self.b2
        return out

    def probabilities(self, x: Array) -> Array:
        z = self.logits(x)
        z = z - z.max(axis=1, keepdims=True)
        e = np.exp(z)
        out: Array = e / e.sum(axis=1, keepdims=True)
        return out

    def arrays(self, prefix: str) -> dict[str, Array]:
        return {f"{prefix}_{k}": getattr(self, k) for k in ("mean", "scale", "w1", "b1", "w2", "b2")}

    @classmethod
    def from_arrays(cls, arrays: dict[str, Array], prefix: str) -> Mlp:
        return cls(*(arrays[f"{prefix}_{k}"].astype(np.float32) for k in ("mean", "scale", "w1", "b1", "w2", "b2")))


class SlotTagger:
    """Finds value spans and their slots in a text from its token states.

    Two stages: the token tagger proposes spans (it sees a piece and its neighbours, so it proposes
    fragments too: "User plans: fourteenth"); the verifier, when the weights have one, then reads each
    proposed span whole (its pieces, the words around it, the message, the proposed slot) and says
    how likely it is to state a value at all. It was trained on what taggers that had not seen a message
    proposed for it, so it learned the tagger's own mistakes.
    """

    def __init__(self, tags: list[str], tag_net: Mlp, polarity_net: Mlp, version: str,
                 verifier: Mlp | None = None, more_tag_nets: Sequence[Mlp] = ()) -> None:
        self.tags = tags  # "O", "B-slot", "I-slot", ...
        self.slots = [t[2:] for t in tags if t.startswith("B-")]
        self.tag_net = tag_net
        # taggers trained alike from other seeds: their averaged tags waver less on text unlike the training's
        self.more_tag_nets = list(more_tag_nets)
        self.polarity_net = polarity_net
        self.verifier = verifier  # classes: none, then self.slots in order
        self.version = version
        self._steps_by_penalty: dict[float, BioSteps] = {}

    @classmethod
    def load(cls, path: Path) -> SlotTagger:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        tags = [str(t) for t in arrays.pop("tags")]
        version = str(arrays.pop("version"))
        verifier = Mlp.from_arrays(arrays, "verify") if "verify_w1" in arrays else None
        more = [Mlp.from_arrays(arrays, f"tag{n}") for n in range(2, 2 + _members(arrays))]
        return cls(tags, Mlp.from_arrays(arrays, "tag"), Mlp.from_arrays(arrays, "polarity"), version, verifier,
                   more)

    def save(self, path: Path) -> None:
        arrays: dict[str, npt.NDArray[np.generic]] = {"tags": np.array(self.tags), "version": np.array(self.version),
                                                      **self.tag_net.arrays("tag"),
                                                      **self.polarity_net.arrays("polarity")}
        if self.verifier is not None:
            arrays.update(self.verifier.arrays("verify"))
        for n, net in enumerate(self.more_tag_nets, start=2):
            arrays.update(net.arrays(f"tag{n}"))
        np.savez_compressed(path, allow_pickle=False, **arrays)

    def _bio_steps(self, penalty: float) -> BioSteps:
        """The BIO steps of this tagger's tags at ``penalty`` (made once per penalty)."""
        if penalty not in self._steps_by_penalty:
            self._steps_by_penalty[penalty] = bio_steps(self.tags, penalty)
        return self._steps_by_penalty[penalty]

    def proposals(self, text: str, tokens: TokenStates, min_confidence: float = 0.5,
                  outside_at_least: float = 0.5, bio_penalty: float = BIO_PENALTY) -> list[tuple[Span, int, int]]:
        """The token tagger's spans, each with its first and last piece (before any verification)."""
        return self._propose(text, tokens, min_confidence, outside_at_least, bio_penalty)

    def spans(self, text: str, tokens: TokenStates, min_confidence: float = 0.5,
              outside_at_least: float = 0.5, verify_at_least: float = 0.3,
              bio_penalty: float = BIO_PENALTY, with_features: bool = False) -> list[Span]:
        """``outside_at_least``: O's log-probability gains log((1 - t) / t) before the reading is chosen
        (0.5: O as the tagger gives it; higher: fewer pieces outside every value, a recall knob).
        ``bio_penalty``: what a reading of the pieces pays (log-odds) for each value that starts with an
        inside tag or changes slot halfway (see ``bio_path``).
        ``verify_at_least``: the verifier keeps a span when it is at least this likely to state a value
        (a precision knob). The slot stays the tagger's: measured on the dev set, letting the verifier
        relabel slots lost recall and gained no precision."""
        proposed = self._propose(text, tokens, min_confidence, outside_at_least, bio_penalty, with_features)
        if self.verifier is None or not proposed:
            return [span for span, _i, _j in proposed]
        rows = np.vstack([verify_features(tokens.states, i, j, self.slots.index(span.slot), len(self.slots),
                                          span.confidence) for span, i, j in proposed])
        states_a_value = 1.0 - self.verifier.probabilities(rows)[:, 0]
        return [span for (span, _i, _j), p in zip(proposed, states_a_value, strict=True) if p >= verify_at_least]

    def _propose(self, text: str, tokens: TokenStates, min_confidence: float, outside_at_least: float,
                 bio_penalty: float, with_features: bool = False) -> list[tuple[Span, int, int]]:
        """``with_features``: each span carries reading_features, for the judge (judge.py) or its training; ~3 KB
        a span that a reader without a judge would only keep in its piece readings."""
        if not tokens.offsets:
            return []
        features = token_features(tokens.states)
        probs: Array = np.mean([net.probabilities(features) for net in (self.tag_net, *self.more_tag_nets)],
                               axis=0, dtype=np.float32)
        best = bio_path(probs, self._bio_steps(bio_penalty), outside_at_least)
        found: list[tuple[Span, int, int]] = []
        i = 0
        n = len(tokens.offsets)
        while i < n:
            tag = self.tags[int(best[i])]
            if tag == "O":
                i += 1
                continue
            slot = tag[2:]
            j = i
            # a span runs while the pieces continue the same slot (a stray B- of the same slot joins it),
            # and over the rest of a word whatever its pieces' tags ("ben" "##gal" "##uru" is one value)
            while j + 1 < n and (_same_word(text, tokens.offsets[j], tokens.offsets[j + 1]) or (
                    self.tags[int(best[j + 1])] in (f"I-{slot}", f"B-{slot}") and not (
                    self.tags[int(best[j + 1])] == f"B-{slot}" and _gap(text, tokens.offsets[j],
                                                                       tokens.offsets[j + 1])))):
                j += 1
            confidence = float(np.mean([1.0 - probs[k, 0] for k in range(i, j + 1)]))
            start, end = _word_bounds(text, tokens.offsets[i][0], tokens.offsets[j][1])
            if confidence >= min_confidence and end > start:
                negated_probability = float(self.polarity_net.probabilities(
                    span_features(tokens.states, i, j)[None, :])[0, 1])
                seen = (reading_features(tokens.states, probs, i, j, confidence, negated_probability)
                            if with_features else None)
                found.append((Span(start, end, slot, confidence, negated_probability > 0.5, seen), i, j))
            i = j + 1
        return found


@dataclass(frozen=True)
class BioSteps:
    """The steps BIO rules out, as costs: an I- tag that follows neither its own slot's B- nor I- (after O,
    after another slot's tag, or first of all) costs ``penalty`` (log-odds). ``inside`` lists the I- tags."""

    penalty: float
    inside: npt.NDArray[np.int64]
    begin_of: npt.NDArray[np.int64]  # for every tag: its slot's B- tag for an I- tag, -1 for the rest

    def follows_well(self, path: npt.NDArray[np.int64]) -> bool:
        """No I- tag in ``path`` comes first or after anything but its own slot's B- or I-."""
        begins = self.begin_of[path]
        is_inside = begins >= 0
        if not is_inside.any():
            return True
        if is_inside[0]:
            return False
        before = path[:-1]
        later = path[1:]
        wrong = is_inside[1:] & (before != later) & (before != begins[1:])
        return not bool(wrong.any())


def bio_steps(tags: Sequence[str], penalty: float) -> BioSteps:
    """The BIO steps of these tags at ``penalty``: costly rather than impossible, so that a value whose first
    piece the tagger read as inside still counts when the rest of it is sure."""
    inside = [k for k, tag in enumerate(tags) if tag.startswith("I-")]
    begin_of = np.full(len(tags), -1, dtype=np.int64)
    for k in inside:
        begin_of[k] = list(tags).index(f"B-{tags[k][2:]}")
    return BioSteps(penalty, np.array(inside, dtype=np.int64), begin_of)


def bio_path(probs: Array, steps: BioSteps, outside_at_least: float = 0.5) -> npt.NDArray[np.int64]:
    """The most likely reading of every piece at once (Viterbi over the tags' log-probabilities and the
    BIO step costs), not each piece's own best tag: one piece that wavers no longer cuts a value in two
    or starts a stray one ("software" "engineer" read B-job, I-education is one job or none). (Before, each
    piece was read on its own, outside only when O was at least 0.5 likely and else its best slot tag.)
    ``outside_at_least`` moves the odds of O: log((1 - t) / t) is added to its log-probability (0.5: O
    as the tagger gives it; higher: fewer pieces outside every value; 0 and 1 are taken as 1e-6 and 1 - 1e-6).
    When each piece's own best tag already follows the rules, that is the reading (no other can score
    higher). Otherwise only I- tags have costly steps, so each step needs the best tag so far and, for each
    I- tag, its own slot's B- and I-: linear in the tags, not quadratic."""
    scores = np.log(np.clip(probs, 1e-9, 1.0)).astype(np.float32)
    at = min(max(outside_at_least, 1e-6), 1.0 - 1e-6)
    scores[:, 0] += np.float32(np.log((1.0 - at) / at))
    n, width = scores.shape
    own_best: npt.NDArray[np.int64] = scores.argmax(axis=1).astype(np.int64)
    if steps.follows_well(own_best):
        # every piece at its own best and no step costs anything: no other reading can score higher
        return own_best
    inside, penalty = steps.inside, np.float32(steps.penalty)
    its_begin = steps.begin_of[inside]
    back = np.zeros((n, width), dtype=np.int64)
    total = scores[0].copy()
    total[inside] -= penalty
    for k in range(1, n):
        best = int(total.argmax())
        came = np.full(width, best, dtype=np.int64)
        through = np.full(width, total[best], dtype=np.float32)
        own_b, own_i = total[its_begin], total[inside]
        kept = np.maximum(own_b, own_i)  # an I- tag continuing its own slot's value, at no cost
        keeps = kept >= total[best] - penalty
        came[inside] = np.where(keeps, np.where(own_i >= own_b, inside, its_begin), best)
        through[inside] = np.where(keeps, kept, total[best] - penalty)
        back[k] = came
        total = through + scores[k]
    path = np.zeros(n, dtype=np.int64)
    path[-1] = int(total.argmax())
    for k in range(n - 1, 0, -1):
        path[k - 1] = back[k, path[k]]
    return path


def _members(arrays: dict[str, Array]) -> int:
    """How many further taggers a file holds: tag2_, tag3_, ... with none missing between them (a file
    that skips one is damaged, and averaging the rest would tag otherwise than it was measured)."""
    found = sum(1 for key in arrays if re.fullmatch(r"tag\d+_w1", key))
    if any(f"tag{n}_w1" not in arrays for n in range(2, 2 + found)):
        raise ValueError(f"tagger file holds {found} further taggers but not tag2..tag{found + 1}")
    return found


def _same_word(text: str, left: tuple[int, int], right: tuple[int, int]) -> bool:
    """The right piece continues the left one's word (no space or punctuation between them)."""
    return right[0] == left[1] and right[0] < len(text) and text[right[0]].isalnum() and text[left[1] - 1].isalnum()


def _gap(text: str, left: tuple[int, int], right: tuple[int, int]) -> bool:
    """A new B- after punctuation starts a new value ("peanuts, shellfish")."""
    between = text[left[1]:right[0]]
    return any(ch in ",;/&" for ch in between) or " and " in f" {between} "


# a possessive's tail as the tokenizer cuts it: "sister" "'" "s"
_POSSESSIVE_TAIL = re.compile(r"['’]?s\s+(?=\w)")


# what a place is to something else, after its hyphen: "London-based", "Bristol-born", "a Manchester-bound
# train": the place ends before it (a name's capital says a place: "plant-based" is a diet)
_AFTER_A_PLACE = re.compile(r"-(?:based|born|bound|bred|raised)(?![\w'’-])", re.IGNORECASE)


def _describes_the_name(text: str, at: int) -> bool:
    """What follows the word that ends at ``at`` only says what that name is to something else: the name ends
    there. Only a name said with a capital inside a sentence ("Plant-based since 2020" opens one)."""
    word = at
    while word > 0 and text[word - 1].isalnum():
        word -= 1
    opens = not text[:word].strip() or text[:word].rstrip()[-1] in ".!?\n"
    return text[word].isupper() and not opens and _AFTER_A_PLACE.match(text, at) is not None


def _word_bounds(text: str, start: int, end: int) -> tuple[int, int]:
    """Widen a span of word pieces to whole words ("pean" + "##uts" -> "peanuts"). A span that opens on the
    tail of a possessive ("my sister's yoga class": "'", "s" and on) opens after it, on "yoga": the owner is a
    word of its own (often the family fact beside it), and "s yoga class" is no value."""
    apostrophe = start if text[start] in "'’" else start - 1
    if apostrophe > 0 and text[apostrophe] in "'’" and text[apostrophe - 1].isalnum():
        tail = _POSSESSIVE_TAIL.match(text, start)
        if tail is not None and tail.end() < end:
            start = tail.end()
    while start > 0 and text[start].isalnum():  # back over the word's pieces, "o'clock" and "part-time" whole
        if text[start - 1].isalnum():
            start -= 1
        elif start > 1 and text[start - 1] in "'’-" and text[start - 2].isalnum():
            start -= 2
        else:
            break
    while end < len(text) and (
            (text[end].isalnum() and (text[end - 1].isalnum() or text[end - 1] in "'’-"))
            # on over a hyphen or an apostrophe inside a word: "Al" of "Al-Khatib", "O" of "O'Neill"
            or (text[end] in "'’-" and text[end - 1].isalnum() and end + 1 < len(text) and text[end + 1].isalnum()
                and not (text[end] in "'’" and text[end + 1:end + 2].lower() == "s"
                         and not text[end + 2:end + 3].isalnum())
                and not _describes_the_name(text, end))
            # a number's point or comma: "go 1.22", "5.5 km", "10,000 steps" ("go 1" was a value)
            or (text[end] in ".," and text[end - 1].isdigit() and end + 1 < len(text) and text[end + 1].isdigit())
            or (text[end].isdigit() and text[end - 1] in ".," and end > 1 and text[end - 2].isdigit())):
        end += 1
    value = text[start:end]
    # the tagger's own span may take the word in too ("I'm London-based": "London-based")
    described = _AFTER_A_PLACE.search(value)
    if described is not None and described.end() == len(value) and _describes_the_name(text, start + described.start()):
        value = value[:described.start()]
    stripped = value.rstrip(" .,;:!?)(\"'")
    lead = len(value) - len(value.lstrip(" ,;:(\"'"))
    return start + lead, start + len(stripped)
