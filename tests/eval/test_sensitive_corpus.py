"""200+ realistic secrets in varied sentences: none stored, traced or exported; the facts around them kept."""

from __future__ import annotations

import logging

import pytest

from mnemo.domain.sensitive import find_sensitive
from tests.conftest import ApiClient
from tests.eval.secrets_corpus import corpus


def test_the_corpus_is_large_and_every_secret_is_detected() -> None:
    cases = corpus()
    assert len(cases) >= 200
    missed = [(kind, message) for kind, _value, message, _fact in cases if not find_sensitive(message)]
    assert missed == []


def test_no_secret_survives_the_pipeline(api: ApiClient, stored, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)  # every log line of every logger, as an operator could enable it
    cases = corpus(rounds=2)
    for i, (_kind, _value, message, _fact) in enumerate(cases):
        api.say(f"user-{i % 20}", f"conv-{i}", message)
    listed = " ".join(m["content"] + " " + str(m["provenance"]) + " " + str(m["metadata"])
                      for u in range(20) for m in api.memories(f"user-{u}", status=None))
    raw = stored()
    for kind, forms, _message, _fact in cases:
        for secret in forms:
            assert len(secret) >= 6, (kind, secret)
            assert secret not in listed, kind
            assert secret.encode() not in raw, kind
    for u in range(20):
        export = str(api.call("GET", f"/v1/users/user-{u}/export")[1])
        assert not any(secret in export for _kind, forms, _m, _f in cases for secret in forms)
        retrieved = api.retrieve(f"user-{u}", "What do you know about my accounts and cards?")
        trace = str(api.call("GET", f"/v1/traces/{retrieved['trace_id']}")[1])
        assert not any(secret in trace + str(retrieved) for _kind, forms, _m, _f in cases for secret in forms)
    logged = caplog.text
    assert logged, "the pipeline logged something, so this check can fail"
    assert not any(secret in logged for _kind, forms, _m, _f in cases for secret in forms)


def test_the_durable_facts_beside_the_secrets_are_kept(api: ApiClient) -> None:
    cases = corpus(rounds=1)
    kept = 0
    for i, (_kind, _value, message, fact) in enumerate(cases):
        user = f"keeper-{i}"
        api.say(user, "c", message)
        if any(fact.lower() in m["content"].lower() for m in api.memories(user)):
            kept += 1
    assert kept / len(cases) >= 0.9, f"{kept}/{len(cases)} facts kept"
