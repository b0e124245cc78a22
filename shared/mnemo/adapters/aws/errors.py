"""SDK errors become the core's, at the edge: a failing back end is a 503, never a stack trace."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from botocore.exceptions import BotoCoreError, ClientError

from mnemo.errors import BackendUnavailable, Throttled

THROTTLING = {"ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded",
              "TooManyRequestsException", "LimitExceededException"}


@contextmanager
def aws_errors(what: str) -> Iterator[None]:
    try:
        yield
    except ClientError as exc:
        code = exc.response.get("Error", {}).get("Code", "")
        if code in THROTTLING:
            raise Throttled(f"{what} is throttled; retry later") from exc
        raise BackendUnavailable(f"{what} failed ({code})") from exc
    except BotoCoreError as exc:
        raise BackendUnavailable(f"{what} is unreachable") from exc
