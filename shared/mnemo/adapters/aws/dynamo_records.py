"""Traces, feedback, audit and the turn buffer in the same DynamoDB table (see dynamo_state).

Lookups the API makes without a user (a trace by id, a tenant's feedback since a moment) go
through small pointer items in a tenant-wide partition that hold ids only; the records themselves
live in the user's partition, so erasing a user's partition removes every record, and a pointer
left behind resolves to nothing. Everything that can hold user text is sealed.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from botocore.exceptions import ClientError

from mnemo.adapters.aws.dynamo_state import DynamoTable, expired, pk
from mnemo.adapters.aws.errors import aws_errors
from mnemo.clock import iso
from mnemo.crypto import UserCipher
from mnemo.domain.models import AuditEvent, BufferedTurn, FeedbackRecord, Message, RetrievalTrace
from mnemo.errors import BackendUnavailable
from mnemo.ports import BufferResult


def _ttl(moment: datetime) -> dict[str, str]:
    return {"N": str(int(moment.timestamp()))}


class DynamoTraceStore:
    def __init__(self, table: DynamoTable) -> None:
        self._t = table

    def put(self, trace: RetrievalTrace) -> None:
        owner = pk(trace.tenant_id, trace.user_id)
        ttl = _ttl(trace.expires_at)
        self._t.put({"pk": {"S": owner}, "sk": {"S": f"TRACE#{trace.trace_id}"},
                     "body": {"S": trace.model_dump_json()}, "ttl": ttl})
        self._t.put({"pk": {"S": f"{trace.tenant_id}#_trace"}, "sk": {"S": trace.trace_id},
                     "user_id": {"S": trace.user_id}, "ttl": ttl})
        if trace.conversation_id:
            self._t.put({"pk": {"S": owner}, "sk": {"S": f"CONV#{trace.conversation_id}#{iso(trace.created_at)}"},
                         "trace_id": {"S": trace.trace_id}, "ttl": ttl})

    def get(self, tenant_id: str, trace_id: str, now: datetime) -> RetrievalTrace | None:
        pointer = self._t.get(f"{tenant_id}#_trace", trace_id)
        if pointer is None or expired(pointer, now):
            return None
        item = self._t.get(pk(tenant_id, pointer["user_id"]["S"]), f"TRACE#{trace_id}")
        if item is None or expired(item, now):
            return None
        return RetrievalTrace.model_validate_json(item["body"]["S"])

    def latest(self, tenant_id: str, user_id: str, conversation_id: str, now: datetime) -> RetrievalTrace | None:
        items = self._t.query(pk(tenant_id, user_id), f"CONV#{conversation_id}#", newest_first=True, limit=1)
        if not items or expired(items[0], now):
            return None
        return self.get(tenant_id, items[0]["trace_id"]["S"], now)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        owner = pk(tenant_id, user_id)
        for prefix in ("TRACE#", "CONV#"):
            for item in self._t.query(owner, prefix):
                if prefix == "TRACE#":  # the tenant-wide pointer names the user: it goes too
                    self._t.delete(f"{tenant_id}#_trace", item["sk"]["S"].split("#", 1)[1])
                self._t.delete(owner, item["sk"]["S"])


class DynamoFeedbackStore:
    def __init__(self, table: DynamoTable, cipher: UserCipher) -> None:
        self._t = table
        self._cipher = cipher

    def get(self, tenant_id: str, trace_id: str) -> FeedbackRecord | None:
        pointer = self._t.get(f"{tenant_id}#_feedback_by_trace", trace_id)
        if pointer is None:
            return None
        return self._load(tenant_id, pointer["user_id"]["S"], trace_id)

    def _load(self, tenant_id: str, user_id: str, trace_id: str) -> FeedbackRecord | None:
        item = self._t.get(pk(tenant_id, user_id), f"FEEDBACK#{trace_id}")
        if item is None:
            return None
        return FeedbackRecord.model_validate_json(
            self._cipher.open(tenant_id, user_id, trace_id, "feedback", item["sealed"]["B"]))

    def put(self, record: FeedbackRecord) -> None:
        # a new rating of the same trace replaces the old one, and its time pointer too (a pointer left
        # behind would list the rating twice in ``since`` and outlive the user's erasure)
        before = self._t.get(pk(record.tenant_id, record.user_id), f"FEEDBACK#{record.trace_id}")
        old_at = None
        if before is not None:
            old_at = before["at"]["S"] if "at" in before else \
                iso(FeedbackRecord.model_validate_json(self._cipher.open(
                    record.tenant_id, record.user_id, record.trace_id, "feedback", before["sealed"]["B"])).at)
        sealed = self._cipher.seal(record.tenant_id, record.user_id, record.trace_id, "feedback",
                                   record.model_dump_json().encode())
        # the time in the clear too (the time pointer's key already shows it): an erase, which has
        # destroyed the key by then, finds the pointer without opening the record
        self._t.put({"pk": {"S": pk(record.tenant_id, record.user_id)}, "sk": {"S": f"FEEDBACK#{record.trace_id}"},
                     "sealed": {"B": sealed}, "at": {"S": iso(record.at) or ""}})
        self._t.put({"pk": {"S": f"{record.tenant_id}#_feedback_by_trace"}, "sk": {"S": record.trace_id},
                     "user_id": {"S": record.user_id}})
        self._t.put({"pk": {"S": f"{record.tenant_id}#_feedback_by_time"},
                     "sk": {"S": f"{iso(record.at)}#{record.trace_id}"}, "user_id": {"S": record.user_id}})
        if old_at is not None and old_at != iso(record.at):
            self._t.delete(f"{record.tenant_id}#_feedback_by_time", f"{old_at}#{record.trace_id}")

    def since(self, tenant_id: str, moment: datetime) -> list[FeedbackRecord]:
        with aws_errors("DynamoDB"):
            items = self._t.client.query(
                TableName=self._t.table, ConsistentRead=True,
                KeyConditionExpression="pk = :pk AND sk >= :from",
                ExpressionAttributeValues={":pk": {"S": f"{tenant_id}#_feedback_by_time"},
                                           ":from": {"S": iso(moment) or ""}}).get("Items", [])
        out = []
        for item in items:
            trace_id = item["sk"]["S"].split("#", 1)[1]
            record = self._load(tenant_id, item["user_id"]["S"], trace_id)
            if record is not None and record.at >= moment:
                out.append(record)
        return out

    def for_user(self, tenant_id: str, user_id: str) -> list[FeedbackRecord]:
        records = [self._load(tenant_id, user_id, item["sk"]["S"].split("#", 1)[1])
                   for item in self._t.query(pk(tenant_id, user_id), "FEEDBACK#")]
        return sorted((r for r in records if r is not None), key=lambda r: r.at)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        """Opens nothing: the erase has destroyed the user's key before it gets here (opening a record
        then would make the user a new key and fail, leaving the user's rows behind)."""
        owner = pk(tenant_id, user_id)
        items = self._t.query(owner, "FEEDBACK#")
        untimed: set[str] = set()
        for item in items:
            trace_id = item["sk"]["S"].split("#", 1)[1]
            # the tenant-wide pointers name the user: they go too
            self._t.delete(f"{tenant_id}#_feedback_by_trace", trace_id)
            if "at" in item:
                self._t.delete(f"{tenant_id}#_feedback_by_time", f"{item['at']['S']}#{trace_id}")
            else:  # a rating stored before its time was kept in the clear
                untimed.add(trace_id)
        if untimed:
            self._delete_time_pointers(tenant_id, user_id, untimed)
        # the ratings last: an erase that fails before this point finds them again when retried
        for item in items:
            self._t.delete(owner, item["sk"]["S"])

    def _delete_time_pointers(self, tenant_id: str, user_id: str, trace_ids: set[str]) -> None:
        """The time pointers of these ratings of the user, found by reading the tenant's time line."""
        for item in self._t.query(f"{tenant_id}#_feedback_by_time"):
            if item.get("user_id", {}).get("S") == user_id and item["sk"]["S"].split("#", 1)[1] in trace_ids:
                self._t.delete(f"{tenant_id}#_feedback_by_time", item["sk"]["S"])


AUDIT_RETENTION = timedelta(days=365)


def audit_item(event: AuditEvent, retention: timedelta = AUDIT_RETENTION, suffix: str | None = None) -> dict[str, Any]:
    """The item of one audit event; ``suffix`` makes its key deterministic (a repair writing it twice
    writes one item)."""
    return {"pk": {"S": pk(event.tenant_id, event.user_id)},
            "sk": {"S": f"AUDIT#{iso(event.at)}#{suffix or uuid.uuid4().hex[:8]}"},
            "body": {"S": event.model_dump_json()}, "ttl": _ttl(event.at + retention)}


class DynamoAuditLog:
    """Ids, actor and time only; newest first per user. Inside a unit of work (the memory store's
    ``atomic()``) the events commit in the same DynamoDB transaction as the versions they describe
    and the clearing of the write's journal entry (see OpenSearchMemoryStore)."""

    def __init__(self, table: DynamoTable, retention: timedelta = AUDIT_RETENTION) -> None:
        self._t = table
        self._retention = retention

    def record(self, events: Sequence[AuditEvent]) -> None:
        for e in events:
            self._t.stage(self._t.put_action(audit_item(e, self._retention)))

    def for_user(self, tenant_id: str, user_id: str, limit: int) -> list[AuditEvent]:
        items = self._t.query(pk(tenant_id, user_id), "AUDIT#", newest_first=True, limit=limit)
        return [AuditEvent.model_validate_json(i["body"]["S"]) for i in items]

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        owner = pk(tenant_id, user_id)
        for item in self._t.query(owner, "AUDIT#"):
            self._t.delete(owner, item["sk"]["S"])


class DynamoTurnBuffer:
    """Sealed buffered messages with a per-conversation sequence; message ids are remembered (as
    markers) after extraction, so a redelivered message is ignored."""

    def __init__(self, table: DynamoTable, cipher: UserCipher, ttl: timedelta) -> None:
        self._t = table
        self._cipher = cipher
        self._ttl = ttl

    def append(self, turns: Sequence[BufferedTurn], now: datetime) -> BufferResult:
        if not turns:
            raise ValueError("no turns")
        first = turns[0]
        owner, conv = pk(first.tenant_id, first.user_id), first.conversation_id
        expires = _ttl(now + self._ttl)
        accepted, dropped, seq = 0, [], 0
        for turn in turns:
            message_id = turn.message.message_id
            if self._t.get(owner, f"MSG#{conv}#{message_id}") is not None:
                dropped.append(message_id)  # seen before: a redelivery
                continue
            with aws_errors("DynamoDB"):  # a seq a failed write never uses is a harmless gap
                counter = self._t.client.update_item(
                    TableName=self._t.table, Key={"pk": {"S": owner}, "sk": {"S": f"SEQ#{conv}"}},
                    UpdateExpression="ADD seq :one SET #ttl = :ttl", ExpressionAttributeNames={"#ttl": "ttl"},
                    ExpressionAttributeValues={":one": {"N": "1"}, ":ttl": expires}, ReturnValues="UPDATED_NEW")
            turn_seq = int(counter["Attributes"]["seq"]["N"])
            sealed = self._cipher.seal(turn.tenant_id, turn.user_id, f"{conv}/{message_id}", "turn",
                                       turn.message.content.encode())
            row = {"pk": {"S": owner}, "sk": {"S": f"BUF#{conv}#{turn_seq:010d}"}, "sealed": {"B": sealed},
                   "message_id": {"S": message_id}, "role": {"S": turn.message.role},
                   "created_at": {"S": iso(turn.message.created_at) or ""},
                   "project_id": {"S": turn.project_id or ""}, "buffered_at": {"S": iso(now) or ""}, "ttl": expires}
            marker = {"pk": {"S": owner}, "sk": {"S": f"MSG#{conv}#{message_id}"}, "ttl": expires}
            # the marker and the row in one transaction: a message is never remembered as seen without
            # being buffered (a retry after a failure between the two would be dropped, the turn lost)
            if not self._put_both(marker, row):
                dropped.append(message_id)  # a concurrent delivery of the same message won
                continue
            seq = turn_seq
            accepted += 1
        live = [i for i in self._t.query(owner, f"BUF#{conv}#") if "sealed" in i]
        users = [i for i in live if i["role"]["S"] == "user"]
        first_at = min((datetime.fromisoformat(i["buffered_at"]["S"]) for i in users), default=None)
        last = max((int(i["sk"]["S"].rsplit("#", 1)[1]) for i in live), default=seq)
        return BufferResult(accepted=accepted, pending=len(users), last_seq=max(seq, last), last_at=now,
                            first_pending_at=first_at, dropped=dropped)

    def _put_both(self, marker: dict[str, Any], row: dict[str, Any]) -> bool:
        """False when the marker exists already (the message was buffered by someone else)."""
        try:
            with aws_errors("DynamoDB"):
                self._t.client.transact_write_items(TransactItems=[
                    {"Put": {"TableName": self._t.table, "Item": marker,
                             "ConditionExpression": "attribute_not_exists(pk)"}},
                    {"Put": {"TableName": self._t.table, "Item": row}}])
        except BackendUnavailable as exc:
            cause = exc.__cause__
            reasons = cause.response.get("CancellationReasons", []) if isinstance(cause, ClientError) else []
            if reasons and reasons[0].get("Code") == "ConditionalCheckFailed":
                return False
            raise
        return True

    def pending(self, tenant_id: str, user_id: str, conversation_id: str, up_to_seq: int) -> list[BufferedTurn]:
        out = []
        for item in self._t.query(pk(tenant_id, user_id), f"BUF#{conversation_id}#"):
            seq = int(item["sk"]["S"].rsplit("#", 1)[1])
            if seq > up_to_seq or "sealed" not in item:
                continue
            message_id = item["message_id"]["S"]
            content = self._cipher.open(tenant_id, user_id, f"{conversation_id}/{message_id}", "turn",
                                        item["sealed"]["B"])
            out.append(BufferedTurn(
                tenant_id=tenant_id, user_id=user_id, conversation_id=conversation_id,
                project_id=item["project_id"]["S"] or None, seq=seq,
                message=Message(role=item["role"]["S"], content=content.decode(), message_id=message_id,
                                created_at=datetime.fromisoformat(item["created_at"]["S"]))))
        return out

    def for_user(self, tenant_id: str, user_id: str) -> list[BufferedTurn]:
        conversations = sorted({i["sk"]["S"].split("#")[1] for i in self._t.query(pk(tenant_id, user_id), "BUF#")
                                if "sealed" in i})
        return [t for c in conversations for t in self.pending(tenant_id, user_id, c, 2**62)]

    def rewrite(self, turn: BufferedTurn, content: str) -> bool:
        sealed = self._cipher.seal(turn.tenant_id, turn.user_id, f"{turn.conversation_id}/{turn.message.message_id}",
                                   "turn", content.encode())
        written = self._t.update_if(pk(turn.tenant_id, turn.user_id), f"BUF#{turn.conversation_id}#{turn.seq:010d}",
                                    "SET sealed = :s", "attribute_exists(sealed)", values={":s": {"B": sealed}})
        return written is not None

    def acknowledge(self, tenant_id: str, user_id: str, conversation_id: str, seqs: Sequence[int]) -> int:
        owner = pk(tenant_id, user_id)
        # the MSG# marker stays (a redelivered message is still recognised); the sealed text goes
        return sum(self._t.delete_if(owner, f"BUF#{conversation_id}#{seq:010d}", "attribute_exists(sealed)")
                   for seq in seqs)

    def delete_user(self, tenant_id: str, user_id: str) -> None:
        owner = pk(tenant_id, user_id)
        for prefix in ("BUF#", "MSG#", "SEQ#", "JOB#"):
            for item in self._t.query(owner, prefix):
                self._t.delete(owner, item["sk"]["S"])


