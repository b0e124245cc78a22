"""Synthesised templates of both stages in cdk.json, built once per test session (about 10 s each).

Bundling is switched off here (the asset is the source folder); tests/infra/test_bundle.py builds
and runs the real bundle, and `make synth` bundles for arm64.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App
from aws_cdk.assertions import Template

from infra.app import build
from infra.stack import MnemoStack

CDK_JSON = json.loads((Path(__file__).resolve().parents[2] / "cdk.json").read_text())


def make_app(stage: str, **extra: Any) -> App:
    return App(context={**CDK_JSON["context"], "stage": stage, "bundle": "false", **extra})


@dataclass
class Synth:
    app: App
    stack: MnemoStack
    template: Template

    @property
    def resources(self) -> dict[str, Any]:
        return self.template.to_json()["Resources"]

    def of_type(self, kind: str) -> dict[str, Any]:
        return {k: v for k, v in self.resources.items() if v["Type"] == kind}


def synth(stage: str, **extra: Any) -> Synth:
    app = make_app(stage, **extra)
    stack = build(app)
    return Synth(app, stack, Template.from_stack(stack))


@pytest.fixture(scope="session")
def dev() -> Synth:
    return synth("dev")


@pytest.fixture(scope="session")
def prod() -> Synth:
    return synth("prod")
