"""The server side of AWS Signature Version 4, as an OpenSearch Service domain checks a request.

The fake recomputes the signature from what arrived on the wire (method, path, query, the signed
headers, the body's hash) with the secret it knows for the access key, so a request signed for the
wrong region or service, with a body changed after signing, or unsigned, gets the 403 AWS gives.
"""

from __future__ import annotations

import hashlib
import hmac
import posixpath
import re
from collections.abc import Mapping
from urllib.parse import parse_qsl, quote

AUTH = re.compile(r"AWS4-HMAC-SHA256 Credential=(?P<key>[^/]+)/(?P<date>\d{8})/(?P<region>[^/]+)/(?P<service>[^/]+)"
                  r"/aws4_request, ?SignedHeaders=(?P<signed>[^,]+), ?Signature=(?P<signature>[0-9a-f]{64})$")


def problem(method: str, raw_path: str, headers: Mapping[str, str], body: bytes, *, secrets: Mapping[str, str],
            region: str, service: str = "es") -> str | None:
    """Why AWS would refuse this request (the message of its 403), or None when the signature holds."""
    lower = {k.lower(): v for k, v in headers.items()}
    found = AUTH.match(lower.get("authorization", ""))
    if not found:
        return "Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' (SigV4)"
    if found["key"] not in secrets:
        return "The security token included in the request is invalid."
    if (found["region"], found["service"]) != (region, service):
        return (f"Credential should be scoped to a valid region ({region}) and service ({service}), "
                f"not {found['region']}/{found['service']}")
    payload = hashlib.sha256(body).hexdigest()
    if lower.get("x-amz-content-sha256", payload) != payload:
        return "The provided 'x-amz-content-sha256' header does not match what was computed."
    signed = found["signed"].split(";")
    if "host" not in signed or any(h not in lower for h in signed):
        return "The request signature must cover the host header and only headers that were sent."
    path, _, query = raw_path.partition("?")
    canonical = "\n".join([
        method, _canonical_path(path), _canonical_query(query),
        "".join(f"{h}:{' '.join(lower[h].split())}\n" for h in signed), ";".join(signed),
        lower.get("x-amz-content-sha256", payload)])
    scope = f"{found['date']}/{region}/{service}/aws4_request"
    to_sign = "\n".join(["AWS4-HMAC-SHA256", lower.get("x-amz-date", ""), scope,
                         hashlib.sha256(canonical.encode()).hexdigest()])
    key = ("AWS4" + secrets[found["key"]]).encode()
    for part in (found["date"], region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    if not hmac.compare_digest(hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest(), found["signature"]):
        return ("The request signature we calculated does not match the signature you provided. "
                "Check your AWS Secret Access Key and signing method.")
    return None


def _canonical_path(path: str) -> str:
    normal = posixpath.normpath(path) if path else "/"
    if path.endswith("/") and not normal.endswith("/"):
        normal += "/"
    return quote(normal, safe="/~")


def _canonical_query(query: str) -> str:
    pairs = parse_qsl(query, keep_blank_values=True)
    return "&".join(f"{quote(k, safe='-_.~')}={quote(v, safe='-_.~')}" for k, v in sorted(pairs))
