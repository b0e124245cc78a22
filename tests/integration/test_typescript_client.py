"""The TypeScript client's document is the one the server serves today.

clients/typescript generates its types from clients/typescript/openapi.json (and its own test
checks the types against that file); this checks the file against the routes, so a change to the
API that is not carried to the client fails here (`make ts-client` regenerates both).
"""

from __future__ import annotations

import json

from tools.openapi_document import DEFAULT_OUT, render, served_document


def test_the_committed_document_is_what_the_server_serves() -> None:
    served = served_document()
    assert json.loads(DEFAULT_OUT.read_text()) == served, "clients/typescript is stale: run `make ts-client`"
    assert DEFAULT_OUT.read_text() == render(served)  # the same bytes: the generated types follow byte for byte
