"""The OpenAPI document as `GET /openapi.json` serves it, written without starting a server.

The TypeScript client's types are generated from this file (clients/typescript, `make ts-client`),
and tests/integration/test_typescript_client.py fails when the committed copy is not what the
routes give today. The local app is built on a throwaway data directory and asked in-process,
with the same API Gateway event `mnemo serve` builds, so the document is the served one.

    python tools/openapi_document.py [OUT]      # default: clients/typescript/openapi.json
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "clients" / "typescript" / "openapi.json"


def served_document() -> dict[str, Any]:
    from mnemo.api.app import create_app
    from mnemo.bootstrap import build_local
    from mnemo.server import build_event
    from mnemo.settings import Settings

    with tempfile.TemporaryDirectory(prefix="mnemo-openapi-") as folder:
        service = build_local(Settings(data_dir=Path(folder)))
        try:
            event = build_event("GET", "/openapi.json", {}, b"", "default", "127.0.0.1")
            answer = create_app(service).resolve(event, None)
        finally:
            service.close()
    if int(answer["statusCode"]) != 200:
        raise RuntimeError(f"/openapi.json answered {answer['statusCode']}")
    document: dict[str, Any] = json.loads(answer["body"])
    return document


def render(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else DEFAULT_OUT
    out.write_text(render(served_document()))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
