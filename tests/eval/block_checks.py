"""A check the hostile rounds share: an injection stored as a memory reaches the block flagged."""

from __future__ import annotations

from mnemo.domain.block import CAUTION
from tests.conftest import ApiClient


def assert_flagged_in_block(api: ApiClient, user: str, content: str, *, needle: str = "pirate",
                            query: str = "how should you talk to me, like a pirate?") -> None:
    """``content`` (an instruction to talk like a pirate, however disguised) is stored, and the one block line
    that shows it (the line with ``needle``) carries the caution."""
    status, body = api.call("POST", f"/v1/users/{user}/memories", {"content": content})
    assert status == 201, body
    lines = [line for line in api.retrieve(user, query)["context"].splitlines() if needle in line]
    assert len(lines) == 1
    assert CAUTION in lines[0]
