"""`cdk deploy` entry point: one mnemo stack for the stage named in context (cdk.json, -c stage=...).

cdk-nag's AwsSolutions checks run on every synth; an unsuppressed finding fails it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parents[1] / "shared")]
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App, Environment, Tags, Validations  # noqa: E402
from cdk_nag import AwsSolutionsChecks  # noqa: E402

from infra.config import ConfigError, StageConfig, load  # noqa: E402
from infra.stack import MnemoStack  # noqa: E402


def build(app: App) -> MnemoStack:
    context = {key: app.node.try_get_context(key) for key in ("stage", "stages")}
    for key in StageConfig.model_fields:  # any stage value may be overridden for one run: -c key=value
        value = app.node.try_get_context(key)
        if value is not None:
            context[key] = value
    config = load({k: v for k, v in context.items() if v is not None})
    # environment-agnostic unless both are named: the template then deploys to any account and region
    account, region = app.node.try_get_context("account"), app.node.try_get_context("region")
    env = Environment(account=account, region=region) if account and region else None
    bundle = str(app.node.try_get_context("bundle")).lower() != "false"  # tests synthesise without the bundle
    stack = MnemoStack(app, f"mnemo-{config.stage}", config=config, env=env, bundle=bundle,
                       description=f"mnemo long-term memory service, stage {config.stage}")
    Tags.of(stack).add("service", "mnemo")
    Tags.of(stack).add("stage", config.stage)
    Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return stack


def main() -> None:
    app = App()
    try:
        build(app)
    except ConfigError as exc:
        sys.exit(f"mnemo: {exc}")
    app.synth()


if __name__ == "__main__":
    main()
