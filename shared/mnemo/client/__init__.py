"""The Python client of mnemo's v1 API (API.md): ``from mnemo.client import Client, AsyncClient``.

Results are the API's own pydantic models (:mod:`mnemo.client.models`); errors are the exceptions
of :mod:`mnemo.client.errors`, carrying the API's error code, message and details.
"""

from mnemo.client._policy import RetryPolicy
from mnemo.client.async_ import AsyncClient
from mnemo.client.errors import (
    APIConnectionError,
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    MnemoError,
    NotFoundError,
    RateLimitError,
    ServerError,
    ServiceUnavailableError,
)
from mnemo.client.sync import Client

__all__ = [
    "APIConnectionError",
    "AsyncClient",
    "AuthenticationError",
    "Client",
    "ConflictError",
    "InvalidRequestError",
    "MnemoError",
    "NotFoundError",
    "RateLimitError",
    "RetryPolicy",
    "ServerError",
    "ServiceUnavailableError",
]
