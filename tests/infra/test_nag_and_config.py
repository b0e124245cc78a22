"""cdk-nag's AwsSolutions pack fails synthesis on any finding we have not acknowledged with a reason;
a stage's configuration is validated (by the service's own settings model) before synthesis."""

from __future__ import annotations

import pytest
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_s3 as s3

from infra.app import build
from infra.config import ConfigError, load
from tests.infra.conftest import CDK_JSON, make_app


def test_both_stages_synthesise_with_no_unacknowledged_finding() -> None:
    for stage in ("dev", "prod"):
        app = make_app(stage)
        build(app)
        assembly = app.synth()  # raises when a validation plugin reports an error
        assert assembly.get_stack_by_name(f"mnemo-{stage}").template["Resources"]


def test_a_new_finding_fails_synthesis() -> None:
    app = make_app("dev")
    stack = build(app)
    s3.Bucket(stack, "Careless")  # no TLS enforcement, no access logs: AwsSolutions-S1, S10
    open_sg = ec2.SecurityGroup(stack, "Wide", vpc=stack.vpc)
    open_sg.add_ingress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(22))  # AwsSolutions-EC23
    with pytest.raises(Exception, match=r"(?i)validation|error"):
        app.synth()


def test_every_acknowledgement_carries_a_reason() -> None:
    app = make_app("dev")
    build(app)
    found = 0
    for construct in app.node.find_all():
        for entry in construct.node.metadata:
            if entry.type == "aws:cdk:acknowledged-rules":
                for rule, reason in entry.data.items():
                    if rule.startswith("AwsSolutions::"):  # (the CDK acknowledges some rules of its own)
                        found += 1
                        assert len(reason) > 40, rule  # a reason, not a placeholder
    assert found > 10


@pytest.mark.parametrize(("change", "message"), [
    ({"settings": {"min_relevance": 2}}, "min_relevance"),
    ({"settings": {"no_such_setting": 1}}, "unknown service settings"),
    ({"settings": {"state_table": "mine"}}, "set by the stack"),
    ({"sizes": {"lambda_of_doom": {"memory_mb": 128, "timeout_seconds": 1}}}, "unknown functions"),
    ({"opensearch_data_nodes": 0}, "opensearch_data_nodes"),
    ({"architecture": "sparc"}, "architecture"),
])
def test_a_bad_stage_is_refused_before_synthesis(change: dict, message: str) -> None:
    stages = {"dev": {**CDK_JSON["context"]["stages"]["dev"], **change}}
    with pytest.raises(ConfigError, match=message):
        load({"stage": "dev", "stages": stages})


def test_context_values_override_the_stage() -> None:
    config = load({"stage": "dev", "stages": CDK_JSON["context"]["stages"], "opensearch_data_nodes": "4",
                   "alarm_email": "ops@example.com"})
    assert config.opensearch_data_nodes == 4
    assert config.alarm_email == "ops@example.com"
    assert load({"stage": "prod", "stages": CDK_JSON["context"]["stages"]}).retain_data is True


def test_the_docs_name_context_keys_as_cdk_json_does() -> None:
    """A runbook that says `retrieveProvisionedConcurrency` sends an operator to a key nothing reads."""
    import re
    from pathlib import Path

    from infra.config import StageConfig

    root = Path(__file__).resolve().parents[2]
    flags = {"stage", "account", "region", "bundle"}  # read by infra/app.py itself
    for doc in ("docs/runbook.md", "docs/first-deploy.md", "README.md"):
        text = (root / doc).read_text()
        for key in set(re.findall(r"-c ([A-Za-z_]+)=", text)) - {"key"}:  # "-c key=value", the syntax
            assert key in StageConfig.model_fields or key in flags, (doc, key)
        for token in re.findall(r"`([a-z]+(?:[A-Z][a-z]+)+)`", text):
            snake = re.sub(r"([A-Z])", r"_\1", token).lower()
            assert snake not in StageConfig.model_fields, (doc, token, snake)
