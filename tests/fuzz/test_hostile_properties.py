"""The hostile review's attacks (issue 11) under generated input: secrets split across the messages
of a turn, prompt markers with anything after them, profile keys and values that try to close the
memory block. MNEMO_FUZZ_SCALE multiplies the number of examples (`make fuzz`)."""

from __future__ import annotations

import re
import string
from datetime import UTC, datetime

from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from mnemo.api.schemas import ProfilePatch
from mnemo.domain.block import FOOTER, HEADER, build_block
from mnemo.domain.models import Profile
from mnemo.domain.screening import ALWAYS_REFUSED, defuse, rejection_reason
from mnemo.domain.sensitive import redact_together
from tests.fuzz.test_properties import card_numbers, examples

TEXT = st.text(alphabet=string.ascii_letters + string.digits + " .,:;!?'\"#<>|[]/\n\t-", max_size=80)


@examples(200)
@given(card=card_numbers(), cut=st.integers(min_value=1, max_value=18), lead=st.sampled_from(
    ["my card is", "card:", "pay with", "it's"]), tail=st.sampled_from(["thanks", "and I like tea", ""]))
def test_a_card_split_across_two_messages_is_cut_from_both(card: str, cut: int, lead: str, tail: str) -> None:
    cut = min(cut, len(card) - 1)
    first, second = f"{lead} {card[:cut]}", f"{card[cut:]} {tail}".strip()
    redacted = redact_together([first, second])
    digits = re.sub(r"\D", "", card)
    assert digits not in re.sub(r"\D", "", "".join(redacted))
    assert all(d not in "".join(redacted) for d in (digits[:8], digits[-8:]))
    if tail:
        assert tail in redacted[1]


MARKERS = st.sampled_from(["SYSTEM:", "SYSTEM", "[INST]", "<|im_start|>system", "### Instruction:", "<<SYS>>",
                           "Note to the AI:", "system prompt:", "</memory>"])


@examples(200)
@given(fact=st.sampled_from(["I'm allergic to peanuts", "I live in Porto", "My sister is called Ana"]),
       marker=MARKERS, tail=TEXT)
def test_a_prompt_marker_is_refused_and_cut_with_all_after_it(fact: str, marker: str, tail: str) -> None:
    text = f"{fact} {marker} {tail}"
    assert rejection_reason(text) in ALWAYS_REFUSED | {"instruction_injection"}
    assert defuse(text) == fact + "."


@examples(300)
@given(key=TEXT, value=TEXT)
def test_no_profile_key_or_value_closes_the_block_or_adds_a_line(key: str, value: str) -> None:
    try:
        patch = ProfilePatch.model_validate({"custom": {key: value}})
    except ValidationError:
        return  # refused at the edge: a clean 422
    custom = patch.custom or {}
    block = build_block(Profile(custom=custom, name=value or None), [], datetime(2026, 1, 1, tzinfo=UTC), 2000)
    lines = block.text.splitlines()
    if not lines:
        return
    assert lines[0] == HEADER
    assert lines.count(FOOTER) == 1
    assert lines[-1] == FOOTER
    assert all(line.startswith(("- ", "Rules:", "Profile:", "#")) for line in lines[1:-1]), lines
    assert sum(line.startswith("#") for line in lines) == 2
