"""What the clients share beyond the routes: which failures are retried, how long to wait, and how an
error response becomes an exception."""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from http import HTTPStatus
from typing import Generic, TypeVar

import httpx2

from mnemo.client._calls import Call
from mnemo.client.errors import APIConnectionError, MnemoError, error_class, retry_after_seconds

T = TypeVar("T")

# the request never reached the server: sending it again cannot apply it twice, whatever the method
NOT_SENT = (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout)


@dataclass(frozen=True)
class RetryPolicy:
    """Retries with exponential backoff, only where a second attempt is safe and may succeed:

    - a connection that could not be made (any request: nothing was sent);
    - 503 (a back end is unavailable, nothing half-written), 429 with Retry-After (a quota), and a
      connection lost mid-request, for idempotent requests only (a remember or an import is
      never sent twice unless it never left);
    - never another 4xx or 5xx: the same request would fail the same way.

    The wait doubles from ``backoff`` up to ``max_backoff`` with jitter (clients that failed together
    do not come back together); a Retry-After longer than ``max_retry_after`` is not waited for.
    """

    max_retries: int = 2
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 30.0

    def backoff_for(self, attempt: int) -> float:
        ceiling = min(self.max_backoff, self.backoff * (2 ** attempt))
        return float(ceiling * (0.5 + random.random() / 2))  # noqa: S311  # jitter, not a secret

    def after_error(self, attempt: int, exc: httpx2.TransportError, idempotent: bool) -> float | None:
        """Seconds to wait before the next attempt, or None to give up."""
        if attempt >= self.max_retries:
            return None
        if isinstance(exc, NOT_SENT) or idempotent:
            return self.backoff_for(attempt)
        return None

    def after_response(self, attempt: int, response: httpx2.Response, idempotent: bool) -> float | None:
        if attempt >= self.max_retries or not idempotent or response.status_code not in {429, 503}:
            return None
        retry_after = retry_after_seconds(dict(response.headers))
        if response.status_code == 429 and retry_after is None:
            return None  # throttled without a hint: let the caller decide
        if retry_after is not None and retry_after > self.max_retry_after:
            return None
        return max(retry_after or 0.0, self.backoff_for(attempt))


def error_from_response(response: httpx2.Response) -> MnemoError:
    """The API's `{"error": {"code", "message", "details"}}` as the exception of its status family."""
    status = response.status_code
    code, message, details = f"http_{status}", HTTPStatus(status).phrase if status in HTTPStatus._value2member_map_ \
        else "error", None
    try:
        payload = json.loads(response.content)
    except ValueError:
        payload = None
    error = payload.get("error") if isinstance(payload, dict) else None
    if isinstance(error, dict):
        code = str(error.get("code") or code)
        message = str(error.get("message") or message)
        details = error.get("details")
    return error_class(status)(message, status=status, code=code, details=details, headers=dict(response.headers))


def connection_error(exc: httpx2.TransportError) -> APIConnectionError:
    kind = "timeout" if isinstance(exc, httpx2.TimeoutException) else "connection_error"
    return APIConnectionError(f"{type(exc).__name__}: {exc}", code=kind)


@dataclass(frozen=True)
class Done(Generic[T]):
    value: T


def settle(retry: RetryPolicy, call: Call[T], attempt: int,
           outcome: httpx2.Response | httpx2.TransportError) -> Done[T] | float:
    """What one attempt of ``call`` comes to, the same for the blocking and the async client (they only
    send and sleep): the result, the seconds to wait before the next attempt, or the error raised when
    no retry is left or none is safe."""
    if isinstance(outcome, httpx2.TransportError):
        wait = retry.after_error(attempt, outcome, call.idempotent)
        if wait is None:
            raise connection_error(outcome) from outcome
        return wait
    if outcome.is_success:
        return Done(call.result(outcome.content))
    wait = retry.after_response(attempt, outcome, call.idempotent)
    if wait is None:
        raise error_from_response(outcome)
    return wait
