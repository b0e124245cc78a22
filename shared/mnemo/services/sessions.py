"""Session state (SPEC R2): what one conversation has established so far, with a rolling summary.

Every ``session_summary_every`` turns the older turns are folded into the rolling summary and
only the last ``session_recent_turns`` stay raw, so the state stays small however long the
conversation runs. The summary keeps what the user stated (as the extractor reads it) and the
questions they asked; it is rule-based, like the rest of the embedded home.

The turns request that reaches a checkpoint only marks it (``fold_due``: how many of the oldest raw
turns are to be folded); the fold runs the extractor, so it is done by the conversation's extraction
job, which that same request schedules (``checkpoint``), never inside a request.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from mnemo.domain.extraction.readings import reading_for
from mnemo.domain.models import Message, SessionState
from mnemo.domain.sensitive import sensitive_item
from mnemo.errors import InvalidInput, PayloadTooLarge
from mnemo.services.context import Ports

# the state's texts an app writes whole: a secret in one is named by its item ("confirmed_facts.3")
_ITEMISED = ("confirmed_facts", "open_questions", "rolling_summary")


class SessionService:
    def __init__(self, ports: Ports) -> None:
        self.p = ports

    def _ttl(self) -> timedelta:
        return timedelta(hours=self.p.settings.session_ttl_hours)

    def get(self, tenant_id: str, user_id: str, session_id: str) -> SessionState:
        now = self.p.clock.now()
        return self.p.sessions.get(tenant_id, user_id, session_id, now) or SessionState(
            session_id=session_id, updated_at=None, expires_at=None)

    def update(self, tenant_id: str, user_id: str, session_id: str, changes: dict[str, Any]) -> SessionState:
        """The app sets its structured state (facts confirmed, task progress, open questions)."""
        # screened once (mnemo.domain.sensitive.sensitive_item); the app's lists and summary first, each item
        # named where it carries the secret alone
        ordered = {name: changes[name] for name in (*_ITEMISED, *changes) if name in changes}
        found = sensitive_item(ordered)
        if found is not None:
            name, index = found
            if name in _ITEMISED and index is not None:
                field = name if name == "rolling_summary" else f"{name}.{index}"
                raise InvalidInput("session state must not carry secrets",
                                   details={"field": field, "reason": "sensitive_data"})
            raise InvalidInput(f"{name} must not carry secrets", details={"field": name})
        now = self.p.clock.now()
        with self.p.locks.hold(tenant_id, user_id):
            state = self.get(tenant_id, user_id, session_id)
            state = self._fitted(state.model_copy(update={**changes, "updated_at": now,
                                                          "expires_at": now + self._ttl()}))
            if _size(state) > self.p.settings.session_state_max_bytes:
                raise PayloadTooLarge(f"a session's state is at most {self.p.settings.session_state_max_bytes} bytes",
                                      details={"field": "body", "reason": f"{_size(state)} bytes as stored"})
            self.p.sessions.put(tenant_id, user_id, state)
        return state

    def _fitted(self, state: SessionState) -> SessionState:
        """``state`` within settings.session_state_max_bytes as far as its raw recent turns can make it: the
        oldest go first (they are still in the turn buffer, so extraction keeps them; only the rolling summary
        misses them), and a single turn longer than the whole budget is cut."""
        budget = self.p.settings.session_state_max_bytes
        if _size(state) <= budget:
            return state
        room = budget - _size(state.model_copy(update={"recent_turns": []}))
        kept: list[dict[str, str]] = []
        for turn in reversed(state.recent_turns):
            need = len(json.dumps(turn).encode()) + 1
            if need > room:
                if not kept and room > 200:  # the newest alone is over the budget: its head
                    kept.append({**turn, "content": _cut(turn.get("content", ""), room - 100)})
                break
            kept.append(turn)
            room -= need
        kept.reverse()
        dropped = len(state.recent_turns) - len(kept)
        return state.model_copy(update={"recent_turns": kept, "fold_due": max(0, state.fold_due - dropped)})

    def record_turns(self, tenant_id: str, user_id: str, session_id: str, messages: Sequence[Message]) -> None:
        """Called for every accepted turn (already redacted); marks the rolling summary's checkpoints."""
        now = self.p.clock.now()
        s = self.p.settings
        with self.p.locks.hold(tenant_id, user_id):
            state = self.get(tenant_id, user_id, session_id)
            recent = [*state.recent_turns, *({"role": m.role, "content": m.content} for m in messages)]
            count = state.turn_count + len(messages)
            fold_due = state.fold_due
            if count // s.session_summary_every > state.turn_count // s.session_summary_every \
                    and len(recent) > s.session_recent_turns:
                fold_due = len(recent) - s.session_recent_turns  # all but the last few, as of this checkpoint
            self.p.sessions.put(tenant_id, user_id, self._fitted(state.model_copy(update={
                "recent_turns": recent, "turn_count": count, "fold_due": fold_due,
                "updated_at": now, "expires_at": now + self._ttl()})))

    def checkpoint(self, tenant_id: str, user_id: str, session_id: str) -> bool:
        """Fold the turns a checkpoint marked into the rolling summary (the extraction job's work).

        The extractor runs outside the user's lock, so the user's requests do not wait for it; the
        result is written only if the state still starts with the turns folded and holds the same
        summary (else a forget or the app changed it meanwhile, and the next job folds again).
        Returns whether a fold was written."""
        before = self.p.sessions.get(tenant_id, user_id, session_id, self.p.clock.now())
        if before is None or before.fold_due == 0:
            return False
        older = before.recent_turns[:before.fold_due]
        with reading_for(tenant_id, user_id):  # turns its extraction jobs read: their pieces' readings are kept
            summary = self._fold(before.rolling_summary, older)
        with self.p.locks.hold(tenant_id, user_id):
            state = self.p.sessions.get(tenant_id, user_id, session_id, self.p.clock.now())
            if state is None or state.recent_turns[:len(older)] != older or state.fold_due < len(older) \
                    or state.rolling_summary != before.rolling_summary:
                return False
            self.p.sessions.put(tenant_id, user_id, state.model_copy(update={
                "recent_turns": state.recent_turns[len(older):], "rolling_summary": summary,
                "fold_due": state.fold_due - len(older)}))
        return True

    def _fold(self, summary: str, turns: list[dict[str, str]]) -> str:
        now = self.p.clock.now()
        lines = [line for line in summary.splitlines() if line]
        users = [Message(role=t["role"], content=t["content"], message_id=f"s{i}", created_at=now)
                 for i, t in enumerate(turns)]
        extraction = self.p.extractor.extract(users)
        lines.extend(f"- {c.content}" for c in extraction.accepted)
        lines.extend(f"- User asked: {t['content'][:160]}" for t in turns
                     if t["role"] == "user" and t["content"].rstrip().endswith("?"))
        text = "\n".join(dict.fromkeys(lines))  # ordered, without repeats
        limit = self.p.settings.session_summary_chars
        while len(text) > limit and "\n" in text:
            text = text.split("\n", 1)[1]  # the oldest lines go first
        return text


def _size(state: SessionState) -> int:
    return len(state.model_dump_json().encode())


def _cut(text: str, limit: int) -> str:
    """The head of ``text`` whose JSON form is at most ``limit`` bytes (escapes and other scripts count)."""
    while text and len(json.dumps(text).encode()) > limit:
        text = text[:max(0, min(len(text) - 1, len(text) * limit // len(json.dumps(text).encode())))]
    return text
