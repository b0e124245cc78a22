"""Which memories a request may see: the user's own, plus those of the project and session it names."""

from __future__ import annotations

from mnemo.domain.models import Memory, Scope


def visible_in_scope(memory: Memory, project_id: str | None, session_id: str | None) -> bool:
    """User-scoped facts are always in view; project and session facts only in their own."""
    if memory.scope is Scope.PROJECT:
        return project_id is not None and memory.project_id == project_id
    if memory.scope is Scope.SESSION:
        return session_id is not None and memory.session_id == session_id
    return True
