"""The real OpenSearch transport: opensearch-py over HTTPS (urllib3), signed with SigV4 by
opensearch-py's signer (botocore's SigV4Auth, credentials frozen per request so a rotation never
mixes an old key with a new secret).

Errors become the core's here, at the edge: an error status becomes ``error_from``'s error (its
status and OpenSearch's error type kept, so the adapter can accept a 404 of a missing document), a
dropped connection or a timeout after the client's retries a ``BackendUnavailable``.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from mnemo.adapters.aws.opensearch_store import error_from
from mnemo.errors import BackendUnavailable


class SignedOpenSearchTransport:
    def __init__(self, url: str, region: str, timeout: float = 5.0, *, credentials: Any = None,
                 max_retries: int = 2) -> None:
        """``credentials``: botocore credentials; by default the role's, refreshed as they rotate."""
        import boto3
        from opensearchpy import OpenSearch, Urllib3AWSV4SignerAuth, Urllib3HttpConnection

        # refreshable: a warm Lambda outlives one set of role credentials
        auth = Urllib3AWSV4SignerAuth(credentials or boto3.Session().get_credentials(), region, "es")
        parts = urlsplit(url)
        # urllib3 rather than requests: no proxy and netrc lookups in the environment on every request
        self._client = OpenSearch(hosts=[{"host": parts.hostname, "port": parts.port or 443}], http_auth=auth,
                                  use_ssl=parts.scheme == "https", verify_certs=True,
                                  connection_class=Urllib3HttpConnection, timeout=timeout, max_retries=max_retries,
                                  retry_on_timeout=True)

    def request(self, method: str, path: str, *, params: dict[str, str] | None = None,
                body: Any = None) -> dict[str, Any]:
        result = self._perform(method, path, params, body)
        return result if isinstance(result, dict) else {}

    def head(self, path: str) -> bool:
        # opensearch-py answers a HEAD with True (2xx) or False (404) instead of raising
        return bool(self._perform("HEAD", path, None, None))

    def _perform(self, method: str, path: str, params: dict[str, str] | None, body: Any) -> Any:
        from opensearchpy.exceptions import ConnectionError as Unreachable
        from opensearchpy.exceptions import OpenSearchException, TransportError

        try:
            return self._client.transport.perform_request(
                method, path, params=params or {}, body=body if isinstance(body, str) else json.dumps(body)
                if body is not None else None)
        except Unreachable as exc:  # also a timeout: ConnectionTimeout is a ConnectionError
            raise BackendUnavailable("OpenSearch is unreachable") from exc
        except TransportError as exc:
            if not isinstance(exc.status_code, int):
                raise BackendUnavailable("OpenSearch request failed") from exc
            raise error_from(exc.status_code, exc.info) from exc
        except OpenSearchException as exc:
            raise BackendUnavailable("OpenSearch request failed") from exc
