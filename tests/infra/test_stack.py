"""What the stack must provision, read off the synthesised CloudFormation (aws_cdk.assertions)."""

from __future__ import annotations

import importlib
import json
import re
from typing import Any

import pytest
from aws_cdk.assertions import Match

from infra.config import DEFAULT_SIZES
from mnemo.adapters.aws.dynamo_state import ATTRIBUTES, KEY_SCHEMA
from mnemo.settings import Settings
from tests.infra.conftest import Synth

API_ROUTES = [  # every route of API.md, by the function that serves it
    ("POST /v1/users/{user_id}/retrieve", "Retrieve"), ("POST /v1/users/{user_id}/search", "Retrieve"),
    ("POST /v1/users/{user_id}/turns", "Ingest"),
    ("POST /v1/users/{user_id}/conversations/{conversation_id}/close", "Ingest"),
    ("POST /v1/users/{user_id}/feedback", "Feedback"), ("ANY /v1/{proxy+}", "Memories"),
    ("GET /health", "Memories"), ("GET /openapi.json", "Memories"),
]


def functions(s: Synth) -> dict[str, dict[str, Any]]:
    """Our functions by job (the CDK's own helper functions left out)."""
    out = {}
    for resource in s.of_type("AWS::Lambda::Function").values():
        props = resource["Properties"]
        match = re.fullmatch(r"functions\.(\w+)\.handler\.handler", props.get("Handler", ""))
        if match:
            out[match.group(1)] = props
    return out


def policies_of(s: Synth, job: str) -> list[dict[str, Any]]:
    role = functions(s)[job]["Role"]["Fn::GetAtt"][0]
    statements = []
    for policy in s.of_type("AWS::IAM::Policy").values():
        if {"Ref": role} in policy["Properties"]["Roles"]:
            statements += policy["Properties"]["PolicyDocument"]["Statement"]
    return statements


def actions(statement: dict[str, Any]) -> list[str]:
    value = statement["Action"]
    return [value] if isinstance(value, str) else value


def text(value: Any) -> str:
    return json.dumps(value)


# -- data --------------------------------------------------------------------------------------------
def test_the_state_table_matches_the_adapter_with_ttl_recovery_and_its_own_key(dev: Synth, prod: Synth) -> None:
    for s, retained in ((dev, False), (prod, True)):
        table = next(t for name, t in s.of_type("AWS::DynamoDB::Table").items() if name.startswith("State"))
        props = table["Properties"]
        assert props["KeySchema"] == KEY_SCHEMA
        assert props["AttributeDefinitions"] == ATTRIBUTES
        assert props["TimeToLiveSpecification"] == {"AttributeName": "ttl", "Enabled": True}
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
        assert props["SSESpecification"]["SSEEnabled"] is True
        assert props["SSESpecification"]["SSEType"] == "KMS"
        assert props["BillingMode"] == "PAY_PER_REQUEST"
        assert table["DeletionPolicy"] == ("Retain" if retained else "Delete")
        assert props.get("DeletionProtectionEnabled", False) is retained


def test_the_wrapped_user_keys_have_their_own_table_without_recovery_copies(dev: Synth, prod: Synth) -> None:
    for s, retained in ((dev, False), (prod, True)):
        tables = s.of_type("AWS::DynamoDB::Table")
        assert len(tables) == 2
        name, table = next((n, t) for n, t in tables.items() if n.startswith("Keys"))
        props = table["Properties"]
        assert props["KeySchema"] == KEY_SCHEMA
        # an erase must destroy the one copy: no point-in-time recovery, no stream, no TTL to wait for
        assert props["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": False}
        assert "StreamSpecification" not in props
        assert {"Key": "mnemo:backup", "Value": "never"} in props["Tags"]
        assert table["DeletionPolicy"] == ("Retain" if retained else "Delete")
        assert props.get("DeletionProtectionEnabled", False) is retained
        assert not s.of_type("AWS::Backup::BackupPlan")
        for job in ("retrieve", "ingest", "feedback", "memories", "extract", "consolidate"):
            assert functions(s)[job]["Environment"]["Variables"]["MNEMO_KEY_TABLE"] == {"Ref": name}
            granted = [st for st in policies_of(s, job) if name in text(st["Resource"])]
            assert len(granted) == 1, job
            assert sorted(actions(granted[0])) == ["dynamodb:ConditionCheckItem", "dynamodb:DeleteItem",
                                                   "dynamodb:GetItem", "dynamodb:PutItem"]
        for job in ("authorizer", "index_setup"):
            assert not [st for st in policies_of(s, job) if name in text(st["Resource"])], job


def test_both_keys_rotate_and_only_the_data_key_wraps_user_keys(dev: Synth) -> None:
    keys = dev.of_type("AWS::KMS::Key")
    assert len(keys) == 2
    assert all(k["Properties"]["EnableKeyRotation"] is True for k in keys.values())
    data_key = next(name for name in keys if name.startswith("DataKey"))
    for job in ("retrieve", "ingest", "feedback", "memories", "extract", "consolidate"):
        statements = [st for st in policies_of(dev, job) if data_key in text(st["Resource"])]
        assert len(statements) == 1, job
        (st,) = statements
        assert sorted(actions(st)) == ["kms:Decrypt", "kms:GenerateDataKey"]
        assert st["Condition"] == {"Null": {"kms:EncryptionContext:tenant_id": "false",
                                            "kms:EncryptionContext:user_id": "false"}}
    for job in ("authorizer", "index_setup"):
        assert not [st for st in policies_of(dev, job) if data_key in text(st["Resource"])], job


def test_queues_have_dead_letter_queues_kms_and_tls_only(dev: Synth) -> None:
    queues = dev.of_type("AWS::SQS::Queue")
    by_name = {q["Properties"]["QueueName"]: (name, q["Properties"]) for name, q in queues.items()}
    assert set(by_name) == {"mnemo-dev-extract", "mnemo-dev-extract-dlq", "mnemo-dev-consolidate",
                            "mnemo-dev-consolidate-dlq"}
    for queue, timeout in (("extract", DEFAULT_SIZES["extract"].timeout_seconds),
                           ("consolidate", DEFAULT_SIZES["consolidate"].timeout_seconds)):
        _, props = by_name[f"mnemo-dev-{queue}"]
        dlq_logical, dlq = by_name[f"mnemo-dev-{queue}-dlq"]
        assert props["RedrivePolicy"] == {"deadLetterTargetArn": {"Fn::GetAtt": [dlq_logical, "Arn"]},
                                          "maxReceiveCount": 5}
        assert props["VisibilityTimeout"] == 6 * timeout
        assert dlq["MessageRetentionPeriod"] == 14 * 24 * 3600
        for p in (props, dlq):
            assert "KmsMasterKeyId" in p
    secure = [p for p in dev.of_type("AWS::SQS::QueuePolicy").values()
              if '"aws:SecureTransport": "false"' in text(p)]
    assert len(secure) == 4
    # the extraction lease (issue 17) outlives any run of the extract function, so a live run is never
    # joined by a second one, and ends before SQS redelivers the message of a run that died
    lease = Settings().extraction_lease_seconds
    assert DEFAULT_SIZES["extract"].timeout_seconds < lease < by_name["mnemo-dev-extract"][1]["VisibilityTimeout"]


def test_the_domain_is_private_encrypted_and_sized_by_stage(dev: Synth, prod: Synth) -> None:
    for s in (dev, prod):
        (domain,) = s.of_type("AWS::OpenSearchService::Domain").values()
        props = domain["Properties"]
        assert props["EngineVersion"].startswith("OpenSearch_2.")
        assert props["EncryptionAtRestOptions"]["Enabled"] is True
        assert "KmsKeyId" in props["EncryptionAtRestOptions"]
        assert props["NodeToNodeEncryptionOptions"] == {"Enabled": True}
        assert props["DomainEndpointOptions"]["EnforceHTTPS"] is True
        assert props["DomainEndpointOptions"]["TLSSecurityPolicy"] == "Policy-Min-TLS-1-2-2019-07"
        assert props["VPCOptions"]["SubnetIds"]
        assert props["EBSOptions"]["VolumeType"] == "gp3"
        assert "AdvancedSecurityOptions" not in props or not props["AdvancedSecurityOptions"].get("Enabled")
        # the access policy delegates to IAM in this account: no anonymous principal
        assert '"AWS": "*"' not in text(props.get("AccessPolicies", {}))
    prod_cluster = next(iter(prod.of_type("AWS::OpenSearchService::Domain").values()))["Properties"]["ClusterConfig"]
    assert prod_cluster["DedicatedMasterEnabled"] is True
    assert prod_cluster["DedicatedMasterCount"] == 3
    assert prod_cluster["InstanceCount"] == 6
    assert prod_cluster["ZoneAwarenessEnabled"] is True


def test_the_index_is_created_by_the_adapters_code_with_the_embedders_dimension(dev: Synth, prod: Synth) -> None:
    (prod_index,) = prod.of_type("AWS::CloudFormation::CustomResource").values()
    assert prod_index["Properties"]["Shards"] == "12"  # the stage's MNEMO_OPENSEARCH_SHARDS
    (index,) = dev.of_type("AWS::CloudFormation::CustomResource").values()
    props = index["Properties"]
    assert props["IndexName"] == "mnemo-dev-memories"
    assert props["Dimension"] == "384"
    assert (props["Shards"], props["Replicas"]) == ("4", "1")
    assert re.fullmatch(r"[0-9a-f]{16}", props["MappingHash"])
    assert any(d.startswith("Search") for d in index["DependsOn"])
    assert functions(dev)["index_setup"]["Handler"] == "functions.index_setup.handler.handler"


# -- functions ---------------------------------------------------------------------------------------
def test_every_function_is_arm64_traced_sized_and_its_handler_exists(dev: Synth) -> None:
    found = functions(dev)
    assert set(found) == set(DEFAULT_SIZES)
    for job, props in found.items():
        assert props["Architectures"] == ["arm64"]
        assert props["Runtime"] == "python3.14"
        assert props["TracingConfig"] == {"Mode": "Active"}
        size = DEFAULT_SIZES[job]
        assert props["MemorySize"] == size.memory_mb
        assert props["Timeout"] == size.timeout_seconds
        assert "ReservedConcurrentExecutions" not in props  # opt-in per stage: dev reserves none
        module = importlib.import_module(props["Handler"].rsplit(".", 1)[0])
        assert callable(module.handler)
        assert ("VpcConfig" in props) is (job != "authorizer")


def test_the_environment_passes_the_settings_model_the_functions_use(dev: Synth, prod: Synth) -> None:
    for s in (dev, prod):
        for job, props in functions(s).items():
            env = props["Environment"]["Variables"]
            # CloudFormation references resolve at deploy time; any string stands in for them here
            concrete = {k: v if isinstance(v, str) else "resolved-at-deploy" for k, v in env.items()}
            settings = Settings.from_env(concrete)
            assert settings.backend == "aws", job
            assert not [k for k in env if "SECRET" in k or "PASSWORD" in k or k == "MNEMO_API_KEYS"]
            # each names the models of its own bundle (tests/infra/test_bundle.py checks they are there)
            if job in ("authorizer", "index_setup"):
                assert not [k for k, v in env.items() if isinstance(v, str) and v.startswith("/var/task/")], job
                continue
            assert env["MNEMO_MODEL_DIR"] == "/var/task/models"
            assert env["MNEMO_QUERY_MODEL_PATH"].startswith("/var/task/models/")
            if job == "retrieve":  # retrieve and search: search's own encoder, and no extractor to check
                assert settings.search_query_model is True
                assert env["MNEMO_SEARCH_QUERY_MODEL_PATH"].startswith("/var/task/models/")
                assert settings.extractor == "rules"
                assert "MNEMO_EXTRACTOR_ENCODER_PATH" not in env
            else:
                assert settings.search_query_model is False, job  # not in the writers' bundle
                assert env["MNEMO_EXTRACTOR_ENCODER_PATH"].startswith("/var/task/models/")
    prod_env = functions(prod)["extract"]["Environment"]["Variables"]
    assert prod_env["MNEMO_EXTRACTOR"] == "bedrock"
    assert prod_env["MNEMO_CONFLICT_JUDGE"] == "bedrock"


def test_permissions_are_least_privilege(dev: Synth, prod: Synth) -> None:
    for s in (dev, prod):
        for job in functions(s):
            for st in policies_of(s, job):
                for action in actions(st):
                    assert not action.endswith(":*"), (job, action)
                    assert action not in ("dynamodb:DeleteTable", "es:ESHttp*", "kms:CreateGrant"), (job, action)
        sends = {job for job in functions(s) if any("sqs:SendMessage" in actions(st) for st in policies_of(s, job))}
        assert sends == {"ingest", "consolidate"}
        (auth,) = [st for st in policies_of(s, "authorizer") if "dynamodb:GetItem" in actions(st)]
        assert actions(auth) == ["dynamodb:GetItem"]
        assert auth["Condition"] == {"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["_apikey#*"]}}
        for job in ("retrieve", "memories"):
            es = [st for st in policies_of(s, job) if any(a.startswith("es:") for a in actions(st))]
            resources = text([st["Resource"] for st in es])
            assert "mnemo-" in resources
            assert "memories" in resources
            assert "_bulk" in resources
    bedrock_dev = [st for job in functions(dev) for st in policies_of(dev, job) if "bedrock:InvokeModel" in actions(st)]
    assert bedrock_dev == []  # the rules extract in dev: no Bedrock permission at all
    bedrock_prod = [st for st in policies_of(prod, "extract") if "bedrock:InvokeModel" in actions(st)]
    assert "foundation-model/anthropic.claude" in text(bedrock_prod)


def test_extraction_consumes_the_queue_with_partial_batch_failures(dev: Synth) -> None:
    mappings = list(dev.of_type("AWS::Lambda::EventSourceMapping").values())
    assert len(mappings) == 2
    for mapping in mappings:
        assert mapping["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


# -- API ---------------------------------------------------------------------------------------------
def test_every_api_route_is_served_and_authorised_by_the_tenant_authorizer(dev: Synth) -> None:
    (api,) = dev.of_type("AWS::ApiGatewayV2::Api").values()
    assert api["Properties"]["ProtocolType"] == "HTTP"
    (authorizer,) = dev.of_type("AWS::ApiGatewayV2::Authorizer").values()
    props = authorizer["Properties"]
    assert props["AuthorizerType"] == "REQUEST"
    assert props["EnableSimpleResponses"] is True
    assert props["IdentitySource"] == ["$request.header.Authorization"]
    assert props["AuthorizerResultTtlInSeconds"] == 300
    assert props["AuthorizerPayloadFormatVersion"] == "2.0"
    routes = {r["Properties"]["RouteKey"]: r["Properties"] for r in dev.of_type("AWS::ApiGatewayV2::Route").values()}
    integrations = dev.of_type("AWS::ApiGatewayV2::Integration")
    for key, job in API_ROUTES:
        assert key in routes, key
        target = routes[key]["Target"]["Fn::Join"][1][1]["Ref"]
        assert job in text(integrations[target]["Properties"]["IntegrationUri"]), key
        public = key in ("GET /health", "GET /openapi.json")
        assert routes[key].get("AuthorizationType", "NONE") == ("NONE" if public else "CUSTOM"), key


def test_the_stage_throttles_and_logs_access_without_bodies(dev: Synth) -> None:
    (stage,) = dev.of_type("AWS::ApiGatewayV2::Stage").values()
    props = stage["Properties"]
    assert props["DefaultRouteSettings"] == {"ThrottlingBurstLimit": 100, "ThrottlingRateLimit": 50}
    log_format = json.loads(props["AccessLogSettings"]["Format"])
    assert {"requestId", "route", "status", "latencyMs", "tenant"} <= set(log_format)
    assert not [v for v in log_format.values() if "body" in v.lower() or "header" in v.lower()]


# -- schedules and operations ------------------------------------------------------------------------
def test_consolidation_and_tuning_run_on_their_own_schedules(dev: Synth) -> None:
    rules = {r["Properties"]["ScheduleExpression"]: r["Properties"] for r in dev.of_type("AWS::Events::Rule").values()}
    assert set(rules) == {"cron(0 3 * * ? *)", "cron(0 4 ? * SUN *)"}
    inputs = sorted(json.loads(r["Targets"][0]["Input"])["job"] for r in rules.values())
    assert inputs == ["consolidate", "tune"]
    for rule in rules.values():
        assert "ConsolidateFunction" in text(rule["Targets"][0]["Arn"])


def test_alarms_cover_errors_throttles_dlqs_lag_and_latency_and_notify(dev: Synth) -> None:
    alarms = {a["Properties"]["AlarmName"]: a["Properties"] for a in dev.of_type("AWS::CloudWatch::Alarm").values()}
    expected = {"mnemo-dev-ExtractDlqNotEmpty", "mnemo-dev-ConsolidateDlqNotEmpty", "mnemo-dev-ExtractionLag",
                "mnemo-dev-RetrieveLatencyP95", "mnemo-dev-Api5xx"}
    for job in DEFAULT_SIZES:
        pascal = "".join(p.title() for p in job.split("_"))
        expected |= {f"mnemo-dev-{pascal}Errors", f"mnemo-dev-{pascal}Throttles"}
    assert expected <= set(alarms)
    assert all(a["AlarmActions"] for a in alarms.values())
    assert alarms["mnemo-dev-ExtractionLag"]["MetricName"] == "ExtractionLag"
    assert alarms["mnemo-dev-ExtractionLag"]["Namespace"] == "mnemo"
    lost = alarms["mnemo-dev-TurnsAcknowledgedUnextracted"]  # issue 17: turns that leave unextracted page someone
    assert (lost["MetricName"], lost["Statistic"], lost["Threshold"]) == ("TurnsAcknowledgedUnextracted", "Sum", 1)
    (topic,) = dev.of_type("AWS::SNS::Topic").values()
    assert "KmsMasterKeyId" in topic["Properties"]


def test_the_dashboard_shows_every_retrieve_stage(dev: Synth) -> None:
    (board,) = dev.of_type("AWS::CloudWatch::Dashboard").values()
    body = text(board["Properties"]["DashboardBody"])
    for metric in ("RetrieveStage_gate", "RetrieveStage_embed", "RetrieveStage_search", "RetrieveStage_rerank",
                   "RetrieveStage_total", "MemoriesInjected", "MemoryTokens", "ExtractionLag", "FactsWritten"):
        assert metric in body, metric


def test_log_groups_expire_and_are_encrypted(dev: Synth) -> None:
    groups = dev.of_type("AWS::Logs::LogGroup").values()
    assert len(groups) >= len(DEFAULT_SIZES) + 3
    for group in groups:
        assert group["Properties"]["RetentionInDays"] == 14
        assert "KmsKeyId" in group["Properties"]


def test_outputs_name_what_operators_need(dev: Synth) -> None:
    outputs = dev.template.to_json()["Outputs"]
    names = {"ApiUrl", "StateTable", "ExtractQueueUrl", "ExtractDlqUrl", "ConsolidateDlqUrl", "IndexName"}
    assert names <= set(outputs)
    dev.template.has_resource_properties("AWS::EC2::VPCEndpoint", Match.object_like({"VpcEndpointType": "Interface"}))


def test_provisioned_concurrency_is_an_option_for_retrieve(prod: Synth, dev: Synth) -> None:
    aliases = list(prod.of_type("AWS::Lambda::Alias").values())
    assert len(aliases) == 1
    assert aliases[0]["Properties"]["ProvisionedConcurrencyConfig"] == {"ProvisionedConcurrentExecutions": 20}
    assert dev.of_type("AWS::Lambda::Alias") == {}


@pytest.mark.parametrize("job", ["retrieve", "memories"])
def test_data_functions_reach_aws_only_through_the_vpc(dev: Synth, job: str) -> None:
    props = functions(dev)[job]
    assert props["VpcConfig"]["SecurityGroupIds"]
    subnets = text(props["VpcConfig"]["SubnetIds"])
    assert "private" in subnets.lower()
    assert dev.of_type("AWS::EC2::NatGateway") == {}
    assert dev.of_type("AWS::EC2::InternetGateway") == {}
