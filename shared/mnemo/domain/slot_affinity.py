"""Which kinds of fact a request needs, from the request's own vector: "my lil furball keeps scratching the
couch" needs the user's pets, "keybinding to format on save?" their editor, "what should I cook tonight"
their diet and allergies, though none of these shares a word or much of a meaning with the fact itself.

One logistic model per slot of the vocabulary (docs/slots.md) over the query vector retrieval already
computes, trained by ``mnemo.training.query_slots`` on committed labelled requests; no extra inference.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float32]


def query_space(model_id: str, fast_query_model: bool) -> str:
    """The vectors a model was trained on: the embedding model, and whether queries go through its twin."""
    return f"{model_id}|{'query-twin' if fast_query_model else 'same-model'}"


# slots a request needs together, whichever of them its words point to: a request that needs the user's
# likes needs their dislikes and favourites too ("what should I order for team lunch?"), one that needs what they
# own needs what they use ("my wifi drivers broke again": the laptop, the OS), one about their project its stack
# and deadline. Not `prefers` (mostly how the user wants answers or tools, "detailed onboarding docs": seed 001's
# irrelevant memory) nor `avoids` ("avoids flying" is no lunch matter).
# Dev conversations (tests/eval/conversations.py, dev3 / dev2 / dev): 89 / 81 / 103 -> 91 / 81 / 104
KINDRED: tuple[frozenset[str], ...] = (
    frozenset({"likes", "dislikes", "favorite"}),
    frozenset({"diet", "allergy"}),
    frozenset({"current_project", "project_stack", "project_detail", "project_deadline"}),
    frozenset({"uses", "owns"}),
    frozenset({"hobby", "habit"}),
)

# slots with no model of their own that a request needs exactly when it needs another: a dependant's allergy or
# school (family_care) helps where the user's family does ("lunchbox ideas for this week?", "what should I cook
# for the Sunday lunch with the family?"), and not in the user's own requests ("snacks for my run")
BORROWED: dict[str, str] = {"family_care": "family", "family_life": "family"}

# slots a request needs at least as much as another, one way: a request that needs the user's plans needs a dated
# deadline too, which the extractor reads from the same words ("the race is April 12", "mehndi is 8 April", "the
# move is march 22": a plan to the user, a deadline to the extractor); a request about a project does not need every
# plan of the user's. Dev conversations (dev .. dev19, 17 sets): 988 -> 994 probes right, none lost
AT_LEAST_AS: dict[str, str] = {"project_deadline": "plan"}


class SlotAffinity:
    """P(a fact of this slot helps answer the request | the request's vector), for every slot."""

    def __init__(self, slots: list[str], weights: Array, bias: Array, version: str) -> None:
        if weights.shape != (len(slots), weights.shape[1]) or bias.shape != (len(slots),):
            raise ValueError("slot affinity: weights and bias do not match the slots")
        self.slots = slots
        self.weights = weights.astype(np.float32)
        self.bias = bias.astype(np.float32)
        self.version = version

    def fits(self, space: str, dimension: int) -> bool:
        """Trained on these query vectors (``version`` is ``<query_space>:<requests>``)."""
        return self.version.rpartition(":")[0] == space and self.weights.shape[1] == dimension

    def probabilities(self, vector: Array) -> dict[str, float]:
        """Each slot's probability of being needed by the request whose query vector this is."""
        logits = self.weights @ np.asarray(vector, dtype=np.float32) + self.bias
        probs = 1.0 / (1.0 + np.exp(-np.clip(logits, -30.0, 30.0)))
        # Python floats for the whole array at once: one numpy scalar per slot was most of this call
        return dict(zip(self.slots, probs.tolist(), strict=True))

    def gains(self, vector: Array, boost: float, at_least: float) -> dict[str, float]:
        """The relevance each slot's memories gain for this request: ``boost`` x p where p >= ``at_least``,
        p being the slot's own probability or, when higher, the probability that one of its kindred slots
        (``KINDRED``) is needed, 1 - prod(1 - p_k): "how do i add a subcommand" needs the user's project 0.49
        and its stack 0.49, each short of 0.5, and a fact of the project 0.74."""
        return {slot: boost * p for slot, p in self.needed(vector).items() if p >= at_least}

    def needed(self, vector: Array) -> dict[str, float]:
        """Each slot's probability of being needed, its own or, when higher, that of one of its kindred slots
        (``KINDRED``) being needed; a borrowing slot (``BORROWED``) reads its source's, and a slot needed at least as
        much as another (``AT_LEAST_AS``) the higher of the two."""
        probs = self.probabilities(vector)
        needed = dict(probs)
        for kin in KINDRED:
            none = math.prod(1.0 - probs.get(slot, 0.0) for slot in kin)
            needed.update({slot: max(needed[slot], 1.0 - none) for slot in kin if slot in needed})
        needed.update({slot: needed[source] for slot, source in BORROWED.items()
                       if source in needed and slot not in needed})
        needed.update({slot: max(needed[slot], needed[source]) for slot, source in AT_LEAST_AS.items()
                       if slot in needed and source in needed})
        return needed

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, slots=np.array(self.slots), weights=self.weights, bias=self.bias,
                            version=np.array(self.version))

    @classmethod
    def load(cls, path: Path) -> SlotAffinity:
        """Raises ValueError for a file that is missing or not a slot affinity model."""
        try:
            with np.load(path, allow_pickle=False) as data:
                return cls([str(s) for s in data["slots"]], data["weights"], data["bias"], str(data["version"]))
        except (OSError, KeyError, ValueError) as e:
            raise ValueError(f"slot affinity model {path.name}: {e}") from e
