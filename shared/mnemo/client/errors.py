"""The client's exceptions: one base, one class per family of HTTP status, each carrying the API's
error code, message and details (API.md, "Errors") as the server sent them."""

from __future__ import annotations

from typing import Any


class MnemoError(Exception):
    """Anything that went wrong talking to mnemo.

    ``status`` is the HTTP status (None when no response came back), ``code`` the API's error code
    (``invalid_input``, ``not_found``, ...), ``details`` its details (for validation errors a list of
    ``{"field", "reason"}``).
    """

    def __init__(self, message: str, *, status: int | None = None, code: str = "error",
                 details: Any = None, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.status = status
        self.code = code
        self.details = details
        self.headers = headers or {}

    def __str__(self) -> str:
        where = f"{self.status} " if self.status is not None else ""
        return f"{where}{self.code}: {self.message}"


class APIConnectionError(MnemoError):
    """No answer: the server could not be reached, or the connection failed or timed out."""


class InvalidRequestError(MnemoError):
    """400, 405, 413, 415, 422 and other 4xx not below: the request itself is wrong; do not retry it."""


class AuthenticationError(MnemoError):
    """401 or 403: no API key, or one the server does not know."""


class NotFoundError(MnemoError):
    """404: an unknown id (another tenant's ids answer the same)."""


class ConflictError(MnemoError):
    """409: the memory moved on since the version you sent."""


class RateLimitError(MnemoError):
    """429: a tenant quota is exhausted; ``retry_after`` is the server's Retry-After in seconds."""

    @property
    def retry_after(self) -> float | None:
        return retry_after_seconds(self.headers)


class ServerError(MnemoError):
    """5xx: the server failed."""


class ServiceUnavailableError(ServerError):
    """503: a back end is unavailable; nothing was half-written, the request can be sent again."""


def retry_after_seconds(headers: dict[str, str]) -> float | None:
    for name, value in headers.items():
        if name.lower() == "retry-after":
            try:
                return max(0.0, float(value))
            except ValueError:
                return None  # an HTTP date: not something our server sends
    return None


def error_class(status: int) -> type[MnemoError]:
    if status in {401, 403}:
        return AuthenticationError
    if status == 404:
        return NotFoundError
    if status == 409:
        return ConflictError
    if status == 429:
        return RateLimitError
    if status == 503:
        return ServiceUnavailableError
    if status >= 500:
        return ServerError
    return InvalidRequestError
