"""The core's error hierarchy; the HTTP layer maps it to status codes in one table."""

from __future__ import annotations

from typing import Any


class MnemoError(Exception):
    """Base of every error the core raises on purpose."""

    code = "internal"

    def __init__(self, message: str, *, details: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.details = details


class ConfigurationError(MnemoError):
    code = "configuration"


class InvalidInput(MnemoError):
    """A client sent something the service cannot accept; ``details`` names the field."""

    code = "invalid_input"


class InvalidField(InvalidInput):
    """A field is outside a range that is a setting (so not in the request schema): answered like the
    schema's own range checks (422), with the same ``details`` list."""


class Unauthorized(MnemoError):
    code = "unauthorized"


class NotFound(MnemoError):
    """Unknown id, or an id of another tenant or user (they look the same)."""

    code = "not_found"


class VersionConflict(MnemoError):
    code = "version_conflict"


class PayloadTooLarge(MnemoError):
    code = "payload_too_large"


class Throttled(MnemoError):
    code = "throttled"


class BackendUnavailable(MnemoError):
    """A store or model could not be reached; nothing was half-written."""

    code = "backend_unavailable"


class ErasureUnderway(BackendUnavailable):
    """A write for a user whose erase has begun and not finished: refused (the erase would miss it),
    nothing written; the request can be retried once the erase is done (503, as the contract says)."""
