"""What a user can see and change about what is remembered (SPEC R10, R11)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from mnemo.crypto import tenant_hash
from mnemo.domain.models import (
    PROFILE_KEY_PATTERN,
    AuditEvent,
    Category,
    Memory,
    MemoryVersion,
    Profile,
    SourceKind,
    Status,
    UserSettings,
)
from mnemo.domain.screening import ALWAYS_REFUSED, rejection_reason
from mnemo.domain.sensitive import sensitive_field
from mnemo.errors import InvalidField, InvalidInput, NotFound, VersionConflict
from mnemo.services.context import Ports
from mnemo.services.writing import MemoryWriter, NewFact, embed_memories, refusal, validate_content

if TYPE_CHECKING:
    from mnemo.services.consolidation import Consolidator


@dataclass
class MemoryEdit:
    content: str | None = None
    category: Category | None = None
    status: Status | None = None  # only ACTIVE (confirm / re-enable) or DISABLED
    version: int | None = None  # optimistic concurrency: the version the client last saw


class UserControl:
    def __init__(self, ports: Ports, writer: MemoryWriter, summaries: Consolidator | None = None,
                 caches: Sequence[Callable[[str, str], None]] = ()) -> None:
        self.p = ports
        self.writer = writer
        self.summaries = summaries  # refreshes the summaries drawn from an edited or deleted memory
        self.caches = caches  # what this process holds of a user beside the stores (the query embeddings)

    def _drawn_from(self, tenant_id: str, user_id: str, memory_id: str) -> list[Memory] | None:
        """Everything of the user as it is before a change of ``memory_id``, when a summary was drawn
        from it (None otherwise: the common case costs one read of the summaries only)."""
        if self.summaries is None:
            return None
        summaries = self.p.memories.page(tenant_id, user_id, statuses=None, category=Category.SUMMARY,
                                         limit=self.p.settings.max_active_memories, cursor=None).items
        if not any(memory_id in m.provenance.memory_ids for m in summaries):
            return None
        return list(self.p.memories.all_for_user(tenant_id, user_id))

    def _audit(self, tenant_id: str, user_id: str, action: str, ids: list[str], **detail: str) -> None:
        self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=user_id, action=action, actor="api",
                                        memory_ids=ids, at=self.p.clock.now(), detail=detail)])

    def get(self, tenant_id: str, user_id: str, memory_id: str) -> Memory:
        memory = self.p.memories.get(tenant_id, user_id, memory_id)
        if memory is None or memory.status is Status.DELETED:
            raise NotFound("memory not found", details={"field": "memory_id"})
        return memory

    def edit(self, tenant_id: str, user_id: str, memory_id: str, edit: MemoryEdit) -> Memory:
        """A new version of the same memory; the previous one goes to its history."""
        if edit.status not in (None, Status.ACTIVE, Status.DISABLED):
            raise InvalidInput("status can only be set to active or disabled", details={"field": "status"})
        if edit.content is not None:
            # the checks of a remembered memory: not blank, within MNEMO_MAX_CONTENT_CHARS (PATCH's
            # schema holds only the default), nothing never stored
            content = validate_content(edit.content, self.p.settings.max_content_chars)
            edit = replace(edit, content=content)
            reason = rejection_reason(content)
            if reason in ALWAYS_REFUSED:
                raise InvalidInput(f"content was not stored: {reason}", details={"field": "content", "reason": reason})
        now = self.p.clock.now()
        with self.p.locks.hold(tenant_id, user_id):
            memory = self.get(tenant_id, user_id, memory_id)
            if edit.version is not None and edit.version != memory.version:
                raise VersionConflict(f"memory is at version {memory.version}", details={"field": "version"})
            if memory.status in {Status.SUPERSEDED, Status.ARCHIVED, Status.EXPIRED}:
                raise VersionConflict(f"a {memory.status.value} memory cannot be edited; edit the current one",
                                      details={"field": "memory_id"})
            update: dict[str, Any] = {"version": memory.version + 1, "updated_at": now}
            changes: list[str] = []
            if edit.content is not None and edit.content.strip() != memory.content:
                content = edit.content.strip()
                vectors, parts = embed_memories(self.p, [content], [memory.created_at], [SourceKind.USER_EXPLICIT])
                update.update(content=content, embedding=vectors[0].tolist(),
                              part_embeddings=parts[0].tolist() if parts[0] is not None else None, confidence=1.0,
                              last_confirmed_at=now)
                update["provenance"] = memory.provenance.model_copy(update={"source": SourceKind.USER_EXPLICIT})
                changes.append("edited by the user")
            if edit.category is not None and edit.category is not memory.category:
                update["category"] = edit.category
                update["expires_at"] = self.p.policy.expiry_for(edit.category, now, memory.scope,
                                                                self.p.session_ttl)
                changes.append("recategorised")
            if edit.status is Status.ACTIVE and memory.status in {Status.PENDING, Status.DISABLED,
                                                                  Status.PROBATIONARY}:
                update.update(status=Status.ACTIVE, last_confirmed_at=now,
                              confidence=max(memory.confidence, 0.9))
                changes.append("confirmed by the user")
            elif edit.status is Status.DISABLED and memory.status is not Status.DISABLED:
                update["status"] = Status.DISABLED
                changes.append("disabled by the user")
            if not changes:
                return memory
            updated = memory.model_copy(update=update)
            history = MemoryVersion(memory_id=memory.memory_id, version=memory.version, content=memory.content,
                                    category=memory.category, status=memory.status, confidence=memory.confidence,
                                    updated_at=memory.updated_at, reason="; ".join(changes))
            drawn = self._drawn_from(tenant_id, user_id, memory_id)
            with self.p.memories.atomic():
                self.p.memories.save([updated], [history])
                if drawn is not None and self.summaries is not None:
                    current = [updated if m.memory_id == memory_id else m for m in drawn]
                    self.summaries.refresh_summaries(tenant_id, user_id, current, {memory_id})
                self.writer.refresh_profile(tenant_id, user_id)
                self._audit(tenant_id, user_id, "memory.edit", [memory_id], change="; ".join(changes))
        return updated

    def delete(self, tenant_id: str, user_id: str, memory_id: str) -> None:
        with self.p.locks.hold(tenant_id, user_id):
            self.get(tenant_id, user_id, memory_id)
            drawn = self._drawn_from(tenant_id, user_id, memory_id)
            with self.p.memories.atomic():
                self.p.memories.delete(tenant_id, user_id, [memory_id])
                if drawn is not None and self.summaries is not None:
                    current = [m for m in drawn if m.memory_id != memory_id]
                    self.summaries.refresh_summaries(tenant_id, user_id, current, {memory_id})
                self.writer.refresh_profile(tenant_id, user_id)
            self._audit(tenant_id, user_id, "memory.delete", [memory_id])

    def update_profile(self, tenant_id: str, user_id: str, changes: dict[str, Any]) -> Profile:
        """Named fields become explicit facts (so facts and profile never disagree); `custom` is the app's."""
        field = sensitive_field(changes)
        if field is not None:
            raise InvalidInput(f"{field} must not carry secrets", details={"field": field})
        for key in (changes.get("custom") or {}):
            if not re.match(PROFILE_KEY_PATTERN, key):
                raise InvalidInput("custom keys are a letter then letters, digits, '_', '.' or '-'",
                                   details={"field": "custom"})
        now = self.p.clock.now()
        facts: list[NewFact] = []
        fields: list[str] = []  # the request field each fact comes from, for an error that names it
        templates = {"name": ("User's name is {}.", "name", Category.BIOGRAPHICAL),
                     "location": ("User lives in {}.", "home_location", Category.BIOGRAPHICAL),
                     "occupation": ("User works as {}.", "job", Category.BIOGRAPHICAL)}
        for key, (template, subject, category) in templates.items():
            if changes.get(key):
                facts.append(NewFact(content=template.format(changes[key]), category=category, subject=subject,
                                     confidence=1.0, source=SourceKind.USER_EXPLICIT, occurred_at=now))
                fields.append(key)
        limit = self.p.settings.max_content_chars
        for key, category in (("preferences", Category.PREFERENCE), ("constraints", Category.CONSTRAINT)):
            for i, given in enumerate(changes.get(key) or []):
                # each becomes a memory: the limits of a remembered one apply (a 42,000-character
                # preference was stored when only the body limit held it)
                text = given.strip()
                if not text:
                    continue  # a blank item says nothing: skipped, as the profile's list would drop it
                if len(text) > limit:
                    reason = f"is longer than {limit} characters"
                    raise InvalidField(f"{key}.{i} {reason}", details={"field": f"{key}.{i}", "reason": reason})
                facts.append(NewFact(content=text, category=category, subject=f"profile:{text.lower()[:60]}",
                                     confidence=1.0, source=SourceKind.USER_EXPLICIT, occurred_at=now))
                fields.append(f"{key}.{i}")
        # everything that would refuse the request is checked before anything is written: a 400 after
        # the name was stored would leave half of the request applied
        refused = [(where, why) for where, fact in zip(fields, facts, strict=True) if (why := refusal(fact))]
        if refused:
            where, why = refused[0]
            raise InvalidInput(f"profile field was not stored: {why}", details={"field": where, "reason": why})
        # (the writer refuses nothing else of these facts) and the custom map is merged once, under the lock
        # that writes it (re-entered by the writer), so a PATCH racing this one cannot push it past its cap
        # once the facts are written
        with self.p.locks.hold(tenant_id, user_id):
            custom = (self.writer.profiles.merged_custom(tenant_id, user_id, changes["custom"])
                      if changes.get("custom") is not None else None)
            results = self.writer.write(tenant_id, user_id, facts, actor="api") if facts else []
            if custom is not None:
                self.writer.profiles.put_custom(tenant_id, user_id, custom)
            profile = self.writer.profiles.current(tenant_id, user_id)
        self._audit(tenant_id, user_id, "profile.edit", [r.memory.memory_id for r in results if r.memory])
        return profile

    def settings(self, tenant_id: str, user_id: str) -> UserSettings:
        return self.p.user_settings.get(tenant_id, user_id)

    def put_settings(self, tenant_id: str, user_id: str, memory_enabled: bool) -> UserSettings:
        settings = UserSettings(memory_enabled=memory_enabled, updated_at=self.p.clock.now())
        self.p.user_settings.put(tenant_id, user_id, settings)
        self._audit(tenant_id, user_id, "settings.edit", [], memory_enabled=str(memory_enabled).lower())
        return settings

    def export(self, tenant_id: str, user_id: str) -> dict[str, Any]:
        """Everything held about the user, readable (R11)."""
        with self.p.locks.hold(tenant_id, user_id):  # an interrupted write's audit events belong in it too
            self.p.memories.recover(tenant_id, user_id)
        memories = list(self.p.memories.all_for_user(tenant_id, user_id))
        # without a key nothing sealed can be read (an erase not finished left it behind): not asked for
        readable = self.p.vault.existing_key(tenant_id, user_id) is not None
        return {
            "tenant_user": user_id,
            "exported_at": self.p.clock.now(),
            "settings": self.p.user_settings.get(tenant_id, user_id).model_dump(mode="json"),
            "profile": self.writer.profiles.current(tenant_id, user_id).model_dump(mode="json"),
            "memories": [
                {**m.model_dump(mode="json", exclude={"embedding", "part_embeddings"}),
                 "history": [h.model_dump(mode="json")
                             for h in self.p.memories.history(tenant_id, user_id, m.memory_id)]}
                for m in memories],
            "audit": [e.model_dump(mode="json") for e in self.p.audit.for_user(tenant_id, user_id, 10_000)],
            "feedback": [f.model_dump(mode="json")
                         for f in (self.p.feedback.for_user(tenant_id, user_id) if readable else [])],
            "sessions": [s.model_dump(mode="json") for s in (
                self.p.sessions.for_user(tenant_id, user_id, self.p.clock.now()) if readable else [])],
            "buffered_turns": [t.model_dump(mode="json")
                               for t in (self.p.buffer.for_user(tenant_id, user_id) if readable else [])],
        }

    def erase(self, tenant_id: str, user_id: str) -> None:
        """Irrecoverable: the data key goes first (crypto-shredding), then every row of the user.

        The stores share no transaction, so the erase is made safe to stop anywhere and to repeat:
        the key's deletion also marks the erase under way, in one step. From then on the user has
        nothing readable (every read of sealed data needs the key, and a read never makes one) and
        nothing can be written (no key can be made while the mark stands: a write racing the erase,
        such as a turn arriving, is refused with a retryable 503 rather than landing after the
        store's deletion). A retry repeats every step (each is idempotent); the mark goes last."""
        with self.p.locks.hold(tenant_id, user_id):
            self.p.vault.destroy(tenant_id, user_id)
            self.p.profiles.delete_user(tenant_id, user_id)
            self.p.user_settings.delete_user(tenant_id, user_id)
            self.p.buffer.delete_user(tenant_id, user_id)
            self.p.traces.delete_user(tenant_id, user_id)
            self.p.feedback.delete_user(tenant_id, user_id)
            self.p.sessions.delete_user(tenant_id, user_id)
            self.p.audit.delete_user(tenant_id, user_id)
            # last: the store also purges the copies it keeps (WAL frames, free pages)
            self.p.memories.delete_user(tenant_id, user_id)
            for forget in self.caches:
                forget(tenant_id, user_id)
            self.p.vault.finish_erase(tenant_id, user_id)
        # the erasure itself is audited under a pseudonym: the trail shows it happened, not to whom
        pseudonym = "erased:" + tenant_hash(self.p.vault, tenant_id, "erased-user", user_id)
        self.p.audit.record([AuditEvent(tenant_id=tenant_id, user_id=pseudonym, action="user.erase", actor="api",
                                        at=self.p.clock.now())])
