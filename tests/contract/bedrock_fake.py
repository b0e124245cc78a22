"""A stand-in for the Bedrock runtime that answers from the request, behind a real boto3 client.

botocore's Stubber replays canned answers in order; a contract suite needs answers computed from
each request (and calls made from several threads). This hooks the client's ``before-call`` event,
the point where Stubber answers too: the client still validates every parameter against the
service model and serialises the request; only the network round trip is replaced.

The model it plays is deliberately careless (fake_llm.careless_answer, shared with the OpenAI
fake): it reads the assistant's lines too and turns what it does not understand into a fact in the
speaker's own words, so the contract checks that the adapter, not the model, enforces what may be
stored.
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import boto3
import numpy as np
from botocore.awsrequest import AWSResponse
from botocore.response import StreamingBody

from tests.contract.fake_llm import careless_answer


class FakeBedrock:
    def __init__(self, region: str = "eu-west-1") -> None:
        self.client = boto3.client("bedrock-runtime", region_name=region)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.fail = False
        self.client.meta.events.register("before-call.bedrock-runtime.*", self._answer)

    def _answer(self, model: Any, params: dict[str, Any], **_: Any) -> tuple[AWSResponse, dict[str, Any]]:
        body = json.loads(params["body"] or b"{}")
        self.calls.append((model.name, body))
        if self.fail:
            error = {"Error": {"Code": "ThrottlingException", "Message": "slow down"}}
            return AWSResponse("https://bedrock", 429, {}, None), error
        if model.name == "InvokeModel":
            return self._ok(self._embedding(body))
        if model.name == "Converse":
            return self._ok(self._converse(body))
        raise AssertionError(f"unexpected operation {model.name}")

    @staticmethod
    def _ok(parsed: dict[str, Any]) -> tuple[AWSResponse, dict[str, Any]]:
        return AWSResponse("https://bedrock", 200, {}, None), parsed

    @staticmethod
    def _embedding(body: dict[str, Any]) -> dict[str, Any]:
        seed = int.from_bytes(hashlib.sha256(body["inputText"].encode()).digest()[:8], "big")
        # off unit length on purpose: the adapter must normalise what it gets
        vector = (np.random.default_rng(seed).normal(size=body["dimensions"]) * 3.0).tolist()
        raw = json.dumps({"embedding": vector, "inputTextTokenCount": len(body["inputText"].split())}).encode()
        return {"body": StreamingBody(io.BytesIO(raw), len(raw)), "contentType": "application/json"}

    def _converse(self, body: dict[str, Any]) -> dict[str, Any]:
        tool = body["toolConfig"]["toolChoice"]["tool"]["name"]
        text = body["messages"][0]["content"][0]["text"]
        if tool == "record_facts":
            answer: dict[str, Any] = careless_answer(text)
        elif tool == "record_summary":
            # the model echoes episodes as facts, each citing itself (the listing is "[e1] 2026-01-01: text")
            listed = [line.split("] ", 1) for line in text.splitlines() if line.startswith("[e")]
            answer = {"facts": [{"text": said.split(": ", 1)[1], "sources": [short[1:]]}
                                for short, said in listed][:5]}
        elif tool == "record_relation":
            answer = {"relation": "independent"}
        else:
            raise AssertionError(f"unexpected tool {tool}")
        return {"output": {"message": {"role": "assistant", "content": [
            {"toolUse": {"toolUseId": "t1", "name": tool, "input": answer}}]}},
            "stopReason": "tool_use", "usage": {"inputTokens": 1, "outputTokens": 1, "totalTokens": 2},
            "metrics": {"latencyMs": 1}}
