"""What a real account would break (issue 12), read off the synthesised templates."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from infra.bedrock import BedrockModelError, model_arns
from infra.config import ConfigError, load
from infra.roles import OPENSEARCH_ATTEMPTS, SEQUENTIAL_SEARCHES
from tests.infra.conftest import CDK_JSON, Synth, synth
from tests.infra.test_stack import actions, functions, policies_of, text

STAGES = CDK_JSON["context"]["stages"]


@pytest.fixture(scope="module")
def pinned() -> Synth:
    """dev in a pinned environment, creating the OpenSearch service-linked role."""
    return synth("dev", account="123456789012", region="eu-west-1", create_opensearch_service_role="true")


# -- 1. reserved concurrency -------------------------------------------------------------------------
def test_reserved_concurrency_is_opt_in_and_prod_states_the_quota_it_needs(dev: Synth, prod: Synth) -> None:
    assert not [p for p in functions(dev).values() if "ReservedConcurrentExecutions" in p]
    reserved = {job: p.get("ReservedConcurrentExecutions") for job, p in functions(prod).items()}
    assert reserved == {**dict.fromkeys(reserved), **STAGES["prod"]["reserved_concurrency"]}
    config = load({"stage": "prod", "stages": STAGES})
    assert config.concurrency_needed() == sum(STAGES["prod"]["reserved_concurrency"].values()) + 100
    assert load({"stage": "dev", "stages": STAGES}).concurrency_needed() == 0


def test_a_stage_reserving_more_than_its_account_allows_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"quota of at least 560.*L-B99A9384"):
        load({"stage": "prod", "stages": STAGES, "account_concurrency_quota": "50"})
    with pytest.raises(ConfigError, match="unknown functions in reserved_concurrency"):
        load({"stage": "dev", "stages": STAGES, "reserved_concurrency": '{"nope": 5}'})


# -- 2. the OpenSearch service-linked role -----------------------------------------------------------
def test_the_service_linked_role_is_created_behind_a_flag_before_the_domain(dev: Synth, pinned: Synth) -> None:
    assert dev.of_type("AWS::IAM::ServiceLinkedRole") == {}
    ((role_id, role),) = pinned.of_type("AWS::IAM::ServiceLinkedRole").items()
    assert role["Properties"]["AWSServiceName"] == "opensearchservice.amazonaws.com"
    (domain,) = pinned.of_type("AWS::OpenSearchService::Domain").values()
    assert role_id in domain["DependsOn"]


# -- 3. alarms reach the encrypted topic -------------------------------------------------------------
def test_cloudwatch_may_publish_to_the_alarm_topic_and_use_its_key(dev: Synth) -> None:
    (topic_policy,) = dev.of_type("AWS::SNS::TopicPolicy").values()
    statements = topic_policy["Properties"]["PolicyDocument"]["Statement"]
    (allow,) = [st for st in statements if st["Effect"] == "Allow"]
    assert allow["Principal"] == {"Service": "cloudwatch.amazonaws.com"}
    assert allow["Action"] == "sns:Publish"
    assert set(allow["Condition"]) == {"StringEquals", "ArnLike"}
    assert "aws:SourceAccount" in allow["Condition"]["StringEquals"]
    assert ":alarm:*" in text(allow["Condition"]["ArnLike"]["aws:SourceArn"])
    assert [st for st in statements if st["Effect"] == "Deny"]  # TLS only, still
    (topic,) = dev.of_type("AWS::SNS::Topic").values()
    key_id = topic["Properties"]["KmsMasterKeyId"]["Fn::GetAtt"][0]
    key_statements = dev.resources[key_id]["Properties"]["KeyPolicy"]["Statement"]
    (cloudwatch,) = [st for st in key_statements if st.get("Principal") == {"Service": "cloudwatch.amazonaws.com"}]
    assert set(actions(cloudwatch)) == {"kms:Decrypt", "kms:GenerateDataKey*"}
    assert "aws:SourceAccount" in cloudwatch["Condition"]["StringEquals"]


# -- 4. Bedrock models and inference profiles --------------------------------------------------------
def test_iam_covers_the_inference_profile_and_its_destination_models(prod: Synth, dev: Synth) -> None:
    for job in ("extract", "memories", "consolidate"):
        (grant,) = [st for st in policies_of(prod, job) if "bedrock:InvokeModel" in actions(st)]
        resources = text(grant["Resource"])
        assert ":inference-profile/us.anthropic.claude-3-5-haiku" in resources, job
        assert ":bedrock:*::foundation-model/anthropic.claude-3-5-haiku" in resources, job
    for job in ("retrieve", "ingest", "feedback", "authorizer", "index_setup"):
        assert not [st for st in policies_of(prod, job) if "bedrock:InvokeModel" in actions(st)], job
    alarms = {a["Properties"]["AlarmName"]: a["Properties"] for a in prod.of_type("AWS::CloudWatch::Alarm").values()}
    assert alarms["mnemo-prod-BedrockFallback"]["MetricName"] == "BedrockFallback"
    assert "mnemo-dev-BedrockFallback" not in {
        a["Properties"]["AlarmName"] for a in dev.of_type("AWS::CloudWatch::Alarm").values()}


@pytest.mark.parametrize(("model", "expected"), [
    ("anthropic.claude-3-5-haiku-20241022-v1:0",
     ["arn:aws:bedrock:eu-west-1::foundation-model/anthropic.claude-3-5-haiku-20241022-v1:0"]),
    ("eu.anthropic.claude-3-7-sonnet-20250219-v1:0",
     ["arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.anthropic.claude-3-7-sonnet-20250219-v1:0",
      "arn:aws:bedrock:*::foundation-model/anthropic.claude-3-7-sonnet-20250219-v1:0"]),
    ("arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-lite-v1:0",
     ["arn:aws:bedrock:eu-west-1:123456789012:inference-profile/eu.amazon.nova-lite-v1:0",
      "arn:aws:bedrock:*::foundation-model/amazon.nova-lite-v1:0"]),
])
def test_model_arns(model: str, expected: list[str]) -> None:
    assert model_arns(model, "aws", "eu-west-1", "123456789012") == expected


def test_profiles_that_cannot_be_granted_are_refused() -> None:
    with pytest.raises(BedrockModelError, match="not served in eu-west-1"):
        model_arns("us.anthropic.claude-3-5-haiku-20241022-v1:0", "aws", "eu-west-1", "1")
    with pytest.raises(BedrockModelError, match="hides its model"):
        model_arns("arn:aws:bedrock:eu-west-1:1:application-inference-profile/abc123", "aws", "eu-west-1", "1")


# -- 7. timeouts nest --------------------------------------------------------------------------------
def test_opensearch_timeouts_fit_inside_each_http_function(dev: Synth, prod: Synth) -> None:
    for s in (dev, prod):
        for job in ("retrieve", "ingest", "feedback", "memories"):
            props = functions(s)[job]
            per_attempt = float(props["Environment"]["Variables"]["MNEMO_OPENSEARCH_TIMEOUT_SECONDS"])
            assert per_attempt * OPENSEARCH_ATTEMPTS * SEQUENTIAL_SEARCHES < props["Timeout"], job


def test_an_llm_extractor_takes_smaller_batches(dev: Synth, prod: Synth) -> None:
    def extract_batch(s: Synth) -> int:
        (mapping,) = [m for m in s.of_type("AWS::Lambda::EventSourceMapping").values()
                      if "ExtractFunction" in text(m["Properties"]["FunctionName"])]
        return int(mapping["Properties"]["BatchSize"])

    assert extract_batch(dev) == 10
    assert extract_batch(prod) == 2


# -- 8. least privilege ------------------------------------------------------------------------------
def test_only_the_authorizer_reaches_api_key_items(dev: Synth, prod: Synth) -> None:
    for s in (dev, prod):
        for job in functions(s):
            for st in policies_of(s, job):
                dynamo = [a for a in actions(st) if a.startswith("dynamodb:")]
                if not dynamo:
                    continue
                assert "dynamodb:Scan" not in dynamo, job  # a scan has no key to condition on
                leading = st["Condition"]
                if job == "authorizer":
                    assert leading == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["_apikey#*"]}}
                    assert dynamo == ["dynamodb:GetItem"]
                else:
                    assert leading == {"ForAllValues:StringNotLike": {"dynamodb:LeadingKeys": ["_apikey#*"]}}, job


def test_each_function_gets_only_the_opensearch_verbs_it_uses(dev: Synth) -> None:
    def verbs(job: str) -> set[str]:
        return {a for st in policies_of(dev, job) for a in actions(st) if a.startswith("es:")}

    assert verbs("retrieve") == {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPost"}
    assert verbs("ingest") == set()
    assert verbs("authorizer") == set()
    puts = {job for job in functions(dev) if "es:ESHttpPut" in verbs(job)}
    assert puts == {"index_setup"}
    assert verbs("index_setup") == {"es:ESHttpGet", "es:ESHttpHead", "es:ESHttpPut"}  # _mapping, _settings
    deletes = {job for job in functions(dev) if "es:ESHttpDelete" in verbs(job)}
    assert deletes == {"memories", "consolidate"}


# -- 9. endpoints and zones --------------------------------------------------------------------------
def endpoint_services(s: Synth) -> set[str]:
    return {re.sub(r"[^a-z-]", "", json.dumps(e["Properties"]["ServiceName"]).rsplit(".", 1)[-1]) for e in
            s.of_type("AWS::EC2::VPCEndpoint").values()}


def test_only_the_endpoints_a_stage_uses(dev: Synth, prod: Synth) -> None:
    assert endpoint_services(dev) == {"dynamodb", "kms", "sqs"}
    assert endpoint_services(prod) == {"dynamodb", "kms", "sqs", "bedrock-runtime"}


def test_a_pinned_environment_looks_up_zones_and_endpoint_support(pinned: Synth) -> None:
    manifest = json.loads((Path(pinned.app.synth().directory) / "manifest.json").read_text())
    missing = {m["key"] for m in manifest.get("missing", [])}
    assert any(key.startswith("availability-zones:account=123456789012:region=eu-west-1") for key in missing)
    assert any(key.startswith("endpoint-service-availability-zones:") and key.endswith(".kms") for key in missing)


def test_the_zones_a_stage_names_are_the_zones_used() -> None:
    s = synth("dev", account="123456789012", region="eu-west-1",
              availability_zone_names='["eu-west-1b", "eu-west-1c"]')
    zones = {sub["Properties"]["AvailabilityZone"] for sub in s.of_type("AWS::EC2::Subnet").values()}
    assert zones == {"eu-west-1b", "eu-west-1c"}


# -- 11. CDK's own functions and consolidate's failures ----------------------------------------------
def test_every_function_logs_to_a_group_that_expires(dev: Synth) -> None:
    groups = dev.of_type("AWS::Logs::LogGroup")
    for name, fn in dev.of_type("AWS::Lambda::Function").items():
        ref: Any = fn["Properties"].get("LoggingConfig", {}).get("LogGroup")
        assert isinstance(ref, dict), name
        assert ref.get("Ref") in groups, name
        assert groups[ref["Ref"]]["Properties"]["RetentionInDays"] == 14, name


def test_scheduled_consolidation_failures_land_in_the_dlq(dev: Synth) -> None:
    (config,) = dev.of_type("AWS::Lambda::EventInvokeConfig").values()
    props = config["Properties"]
    assert "ConsolidateFunction" in text(props["FunctionName"])
    destination = text(props["DestinationConfig"]["OnFailure"]["Destination"])
    assert "ConsolidateDlq" in destination
