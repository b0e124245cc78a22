"""The real OpenSearch transport: opensearch-py over HTTPS with SigV4 (requests-aws4auth)."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from mnemo.errors import BackendUnavailable


class SignedOpenSearchTransport:
    def __init__(self, url: str, region: str, timeout: float = 5.0) -> None:
        import boto3
        from opensearchpy import OpenSearch, RequestsHttpConnection
        from requests_aws4auth import AWS4Auth

        # refreshable: a warm Lambda outlives one set of role credentials
        auth = AWS4Auth(region=region, service="es", refreshable_credentials=boto3.Session().get_credentials())
        parts = urlsplit(url)
        self._client = OpenSearch(hosts=[{"host": parts.hostname, "port": parts.port or 443}], http_auth=auth,
                                  use_ssl=parts.scheme == "https", verify_certs=True,
                                  connection_class=RequestsHttpConnection, timeout=timeout, max_retries=2,
                                  retry_on_timeout=True)

    def request(self, method: str, path: str, *, params: dict[str, str] | None = None,
                body: Any = None) -> dict[str, Any]:
        from opensearchpy.exceptions import OpenSearchException

        try:
            result: Any = self._client.transport.perform_request(
                method, path, params=params or {}, body=body if isinstance(body, str) else json.dumps(body)
                if body is not None else None)
        except OpenSearchException as exc:
            raise BackendUnavailable("OpenSearch request failed") from exc
        return result if isinstance(result, dict) else {}
