"""`make train-extractor` on a small slice of the committed training data: it runs end to end on the
real encoder, writes weights the extractor loads, and the verifier stage changes what is kept."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import numpy as np
import pytest

from mnemo.domain.extraction.tagger import SlotTagger, TokenEncoder
from mnemo.ports import Embedder
from mnemo.training import extractor as training


def small_set() -> list[training.Example]:
    paths = sorted(training.DATA.glob("extraction_train_*.txt"))
    examples = training.load(paths[:3])
    with_values = [e for e in examples if e.spans][:60]
    without = [e for e in examples if not e.spans][:20]
    return with_values + without


def test_training_writes_a_tagger_with_a_verifier_that_the_extractor_loads(embedder: Embedder, tmp_path: Path) -> None:
    encoder = cast("TokenEncoder", embedder)
    examples = small_set()
    tagger = training.train(examples, encoder, epochs=3, seed=1, folds=2)
    assert tagger.verifier is not None
    out = tmp_path / "tagger.npz"
    tagger.save(out)
    loaded = SlotTagger.load(out)
    assert loaded.verifier is not None
    assert loaded.slots == tagger.slots
    tokens = encoder.encode_tokens([examples[0].text])[0]
    assert [s.slot for s in loaded.spans(examples[0].text, tokens)] == [s.slot for s in tagger.spans(examples[0].text,
                                                                                                        tokens)]
    # the verifier is a real second stage: with it required to be certain, it keeps fewer proposals
    states = encoder.encode_tokens([e.text for e in examples])
    proposed = sum(len(tagger.proposals(e.text, t)) for e, t in zip(examples, states, strict=True))
    strict = sum(len(tagger.spans(e.text, t, verify_at_least=0.99)) for e, t in zip(examples, states, strict=True))
    assert proposed > 0
    assert strict < proposed


def test_training_is_reproducible(embedder: Embedder) -> None:
    encoder = cast("TokenEncoder", embedder)
    examples = small_set()[:40]
    first = training.train(examples, encoder, epochs=2, seed=3, folds=2)
    second = training.train(examples, encoder, epochs=2, seed=3, folds=2)
    assert np.array_equal(first.tag_net.w1, second.tag_net.w1)
    assert first.verifier is not None
    assert second.verifier is not None
    assert np.array_equal(first.verifier.w2, second.verifier.w2)


def test_the_taggers_of_several_seeds_are_saved_loaded_and_averaged(embedder: Embedder, tmp_path: Path) -> None:
    from mnemo.domain.extraction.tagger import token_features

    encoder = cast("TokenEncoder", embedder)
    examples = small_set()[:40]
    tagger = training.train(examples, encoder, epochs=2, seed=5, members=3)
    alone = training.train(examples, encoder, epochs=2, seed=5, members=1)
    assert len(tagger.more_tag_nets) == 2
    assert not alone.more_tag_nets
    assert np.array_equal(tagger.tag_net.w1, alone.tag_net.w1)  # the first member is the single tagger
    out = tmp_path / "tagger.npz"
    tagger.save(out)
    loaded = SlotTagger.load(out)
    assert len(loaded.more_tag_nets) == 2
    text = examples[0].text
    tokens = encoder.encode_tokens([text])[0]
    features = token_features(tokens.states)
    nets = [loaded.tag_net, *loaded.more_tag_nets]
    averaged = sum(net.probabilities(features) for net in nets) / len(nets)
    # the spans come from the averaged tags: a member alone proposes otherwise on some text
    assert [(s.start, s.end, s.slot) for s in loaded.spans(text, tokens)] == [
        (s.start, s.end, s.slot) for s in SlotTagger(loaded.tags, _FixedNet(averaged), loaded.polarity_net,
                                                      loaded.version).spans(text, tokens)]


class _FixedNet:
    """A tag net that answers the given probabilities, whatever it is shown."""

    def __init__(self, probs: np.ndarray) -> None:
        self.probs = probs

    def probabilities(self, _x: np.ndarray) -> np.ndarray:
        return self.probs


def test_a_tagger_file_missing_a_member_is_refused(embedder: Embedder, tmp_path: Path) -> None:
    encoder = cast("TokenEncoder", embedder)
    tagger = training.train(small_set()[:20], encoder, epochs=1, seed=2, members=3)
    out = tmp_path / "tagger.npz"
    tagger.save(out)
    with np.load(out) as data:
        arrays = {k: data[k] for k in data.files if not k.startswith("tag2_")}
    damaged = tmp_path / "damaged.npz"
    np.savez_compressed(damaged, **arrays)
    with pytest.raises(ValueError, match="tag2"):
        SlotTagger.load(damaged)
