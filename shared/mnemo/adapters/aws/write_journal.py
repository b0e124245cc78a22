"""The write journal of the AWS home: a memory write and its audit events are never half kept.

A memory lives in OpenSearch, its versions and the audit events about it in DynamoDB, and the two
share no transaction. So a write goes in three steps:
1. a journal entry (one DynamoDB item in the user's partition) names the documents about to be
   written, each with a digest of its sealed text (a fresh nonce makes every write's digest
   unique), and carries the version rows the write will add or remove;
2. the documents are written to (or deleted from) OpenSearch;
3. one DynamoDB transaction writes the version rows, the audit events of the unit of work and the
   deletion of the journal entry (``DynamoTable.unit``).
A write interrupted anywhere (an error, a killed Lambda) leaves its entry behind. The next write of
the user, and the scheduled consolidation, settle it first: each document that is in OpenSearch
as the entry describes it (same digest; for a delete, gone) gets its version rows and an audit
event naming it; a document that never got there gets nothing (nothing happened to it); the entry
goes, in the same transaction. Settling twice writes the same items (deterministic keys).

Settling assumes the user's writes are serialised (the user lock, DESIGN.md section 4): an entry it
finds belongs to a write that is over, not to one still in flight.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from mnemo.adapters.aws.dynamo_records import audit_item
from mnemo.adapters.aws.dynamo_state import TRANSACTION_LIMIT, DynamoTable, pk
from mnemo.clock import Clock, iso
from mnemo.domain.models import AuditEvent

PREFIX = "JOURNAL#"
SAVE, DELETE = "save", "delete"
RECOVERY_ACTOR = "recovery"


def digest(sealed: str) -> str:
    """Identifies one write of a document: its sealed text, as stored (base64)."""
    return hashlib.sha256(sealed.encode()).hexdigest()[:32]


def memory_of(version_sk: str) -> str:
    """The memory id in a version row's key (``VERSION#<memory id>#<version>``)."""
    return version_sk.split("#")[1]


@dataclass(frozen=True)
class Entry:
    tenant_id: str
    user_id: str
    sk: str
    op: str
    docs: dict[str, str]  # memory id -> digest of the document written ("" for a delete)
    puts: list[dict[str, Any]]  # version rows to add
    drops: list[str]  # version rows (sort keys) to remove
    at: datetime


class WriteJournal:
    def __init__(self, table: DynamoTable, clock: Clock) -> None:
        self._t = table
        self._clock = clock

    def begin(self, tenant_id: str, user_id: str, op: str, docs: dict[str, str],
              puts: Sequence[dict[str, Any]] = (), drops: Sequence[str] = ()) -> Entry:
        """Step 1, written at once (also inside a unit of work): the entry must exist before OpenSearch
        changes."""
        entry = Entry(tenant_id, user_id, f"{PREFIX}{iso(self._clock.now())}#{uuid.uuid4().hex}", op, dict(docs),
                      list(puts), list(drops), self._clock.now())
        self._t.put({"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": entry.sk}, "op": {"S": op},
                     "docs": {"S": json.dumps(entry.docs)}, "at": {"S": iso(entry.at) or ""},
                     "puts": {"L": [{"M": row} for row in entry.puts]},
                     "drops": {"L": [{"S": sk} for sk in entry.drops]}})
        return entry

    def finish(self, entry: Entry) -> None:
        """Step 3: the version rows and the entry's deletion join the unit of work (written now without one)."""
        for row in entry.puts:
            self._t.stage(self._t.put_action(row))
        owner = pk(entry.tenant_id, entry.user_id)
        for sk in entry.drops:
            self._t.stage(self._t.delete_action(owner, sk))
        self._t.stage(self._t.delete_action(owner, entry.sk))

    def pending(self, tenant_id: str, user_id: str) -> list[Entry]:
        """Entries of writes that never finished, oldest first."""
        out = []
        for item in self._t.query(pk(tenant_id, user_id), PREFIX):
            out.append(Entry(tenant_id, user_id, item["sk"]["S"], item["op"]["S"], json.loads(item["docs"]["S"]),
                             [row["M"] for row in item.get("puts", {}).get("L", [])],
                             [sk["S"] for sk in item.get("drops", {}).get("L", [])],
                             datetime.fromisoformat(item["at"]["S"])))
        return out

    def settle(self, entry: Entry, landed: set[str]) -> None:
        """Keep what reached OpenSearch (its version rows and an audit event naming it) and drop the entry,
        in one transaction (several when there are more than 100 rows: the entry's deletion comes last)."""
        owner = pk(entry.tenant_id, entry.user_id)
        actions = [self._t.put_action(row) for row in entry.puts if memory_of(row["sk"]["S"]) in landed]
        actions += [self._t.delete_action(owner, sk) for sk in entry.drops if memory_of(sk) in landed]
        if landed:
            event = AuditEvent(tenant_id=entry.tenant_id, user_id=entry.user_id,
                               action="memory.delete" if entry.op == DELETE else "memory.write",
                               actor=RECOVERY_ACTOR, memory_ids=sorted(landed), at=entry.at,
                               detail={"recovered": "the write was interrupted before its audit event"})
            actions.append(self._t.put_action(audit_item(event, suffix=entry.sk.rsplit("#", 1)[1][:8])))
        actions.append(self._t.delete_action(owner, entry.sk))
        for start in range(0, len(actions), TRANSACTION_LIMIT):
            self._t.commit(actions[start:start + TRANSACTION_LIMIT])

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        owner = pk(tenant_id, user_id)
        for item in self._t.query(owner, PREFIX):
            self._t.delete(owner, item["sk"]["S"])
