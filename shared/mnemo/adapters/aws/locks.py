"""Serialising one user's writes across Lambda workers: a short lease in DynamoDB (R6, DESIGN.md 4).

A worker takes the lease with a conditional put (free, or expired); it is released on exit. A
crashed worker's lease lapses after ``lease_seconds``. Waiting is a bounded poll; a worker that
cannot get the lease in time raises Throttled (its SQS message is retried later). A thread that
holds a user's lease re-enters it (the extraction holds it from buffer read to last write).
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from mnemo.adapters.aws.dynamo_state import DynamoTable, pk
from mnemo.clock import Clock
from mnemo.errors import Throttled


class DynamoUserLocks:
    def __init__(self, table: DynamoTable, clock: Clock, lease_seconds: float = 30.0, wait_seconds: float = 20.0,
                 poll_seconds: float = 0.05) -> None:
        self._t = table
        self._clock = clock
        self._lease = lease_seconds
        self._wait = wait_seconds
        self._poll = poll_seconds
        # leases this thread holds, with their depth: a nested hold of the same user re-enters
        self._held = threading.local()

    @contextmanager
    def hold(self, tenant_id: str, user_id: str) -> Iterator[None]:
        held: dict[tuple[str, str], int] = getattr(self._held, "leases", None) or {}
        self._held.leases = held
        if held.get((tenant_id, user_id)):
            held[(tenant_id, user_id)] += 1
            try:
                yield
            finally:
                held[(tenant_id, user_id)] -= 1
            return
        owner = uuid.uuid4().hex
        key = {"pk": {"S": pk(tenant_id, user_id)}, "sk": {"S": "LOCK"}}
        deadline = time.monotonic() + self._wait
        while True:
            now = self._clock.now().timestamp()
            if self._t.put_if({**key, "owner": {"S": owner}, "until": {"N": str(now + self._lease)}},
                              "attribute_not_exists(pk) OR #until < :now", names={"#until": "until"},
                              values={":now": {"N": str(now)}}):
                break
            if time.monotonic() > deadline:
                raise Throttled("another worker holds this user's write lease")
            time.sleep(self._poll)
        held[(tenant_id, user_id)] = 1
        try:
            yield
        finally:
            held.pop((tenant_id, user_id), None)
            # only our own lease: if it lapsed and another worker holds it now, theirs stays
            self._t.delete_if(key["pk"]["S"], "LOCK", "#owner = :me", names={"#owner": "owner"},
                              values={":me": {"S": owner}})
