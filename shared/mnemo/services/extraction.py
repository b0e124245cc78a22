"""The debounced consumer: buffered turns -> candidates -> validated facts -> the write path."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from mnemo.domain.extraction import Candidate
from mnemo.domain.models import Provenance, Scope
from mnemo.ports import ExtractionJob
from mnemo.services.context import Ports
from mnemo.services.forgetting import Forgetter
from mnemo.services.signals import ImplicitSignals
from mnemo.services.writing import MemoryWriter, NewFact, WriteResult, stable_id

log = logging.getLogger("mnemo.extraction")


@dataclass
class ExtractionReport:
    job: ExtractionJob
    stale: bool = False
    messages: int = 0
    results: list[WriteResult] = field(default_factory=list)
    rejected: dict[str, int] = field(default_factory=dict)
    forgotten: list[str] = field(default_factory=list)
    decayed: list[str] = field(default_factory=list)


class ExtractionService:
    def __init__(self, ports: Ports, writer: MemoryWriter, forgetter: Forgetter, signals: ImplicitSignals) -> None:
        self.p = ports
        self.writer = writer
        self.forgetter = forgetter
        self.signals = signals

    def process(self, job: ExtractionJob) -> ExtractionReport:
        """Idempotent: a stale or repeated job changes nothing; a crash halfway is safe to redo."""
        report = ExtractionReport(job)
        if not self.p.queue.is_current(job):
            report.stale = True  # a newer turn overtook it; the newer job covers these turns
            self.p.queue.complete(job)  # removes only this delivery: the newer job stays scheduled
            return report
        turns = self.p.buffer.pending(job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq)
        report.messages = len(turns)
        if turns and self.p.user_settings.get(job.tenant_id, job.user_id).memory_enabled:
            extraction = self.p.extractor.extract([t.message for t in turns])
            project_id = next((t.project_id for t in turns if t.project_id), None)
            facts = []
            for c in extraction.candidates:
                if not c.should_store:
                    key = c.rejection_reason or "rejected"
                    report.rejected[key] = report.rejected.get(key, 0) + 1
                    continue
                if c.confidence < self.p.settings.min_store_confidence:
                    report.rejected["low_confidence"] = report.rejected.get("low_confidence", 0) + 1
                    continue
                facts.append(self._fact(job, c, project_id))
            for request in extraction.forget:
                report.forgotten.extend(self.forgetter.forget(job.tenant_id, job.user_id, request.query,
                                                              actor="extraction"))
            report.results = self.writer.write(job.tenant_id, job.user_id, facts, actor="extraction")
            corrections = [c for c in extraction.accepted if c.correction]
            if corrections:
                report.decayed = self.signals.corrected(
                    job.tenant_id, job.user_id, job.conversation_id,
                    [c.content for c in corrections], [c.subject for c in corrections])
        self.p.buffer.acknowledge(job.tenant_id, job.user_id, job.conversation_id, job.up_to_seq)
        self.p.queue.complete(job)
        log.info("extraction done", extra={"messages": report.messages, "facts": len(report.results),
                                           "rejected": sum(report.rejected.values())})
        return report

    def _fact(self, job: ExtractionJob, c: Candidate, project_id: str | None) -> NewFact:
        scope = Scope.PROJECT if project_id and c.category.value == "project_fact" else Scope.USER
        return NewFact(
            content=c.content, category=c.category, subject=c.subject, confidence=c.confidence, source=c.source,
            occurred_at=c.occurred_at, polarity=c.polarity, importance=c.importance, scope=scope,
            project_id=project_id if scope is Scope.PROJECT else None, sensitivity=c.sensitivity,
            high_stakes=c.high_stakes, correction=c.correction,
            provenance=Provenance(source=c.source, conversation_id=job.conversation_id,
                                  message_ids=[c.message_id], extractor=self.p.extractor.name,
                                  extractor_version=self.p.extractor.version, evidence=c.evidence[:500]),
            memory_id=stable_id(job.tenant_id, job.user_id, job.conversation_id, c.message_id, c.subject),
        )
