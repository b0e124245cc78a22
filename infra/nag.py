"""cdk-nag (AwsSolutions) findings we accept, each with the reason it does not apply or was chosen.

Every acknowledgement names one rule (and, for IAM5, one finding) on the narrowest construct that
raises it; a new finding anywhere else still fails `cdk synth`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_cdk import Acknowledgment, Stack, Validations
from constructs import IConstruct

from infra.bedrock import model_arns
from infra.roles import EMBEDDING_FUNCTIONS, LLM_FUNCTIONS, OPENSEARCH_VERBS

if TYPE_CHECKING:
    from infra.stack import MnemoStack

BASIC = "Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"
VPC = "Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaVPCAccessExecutionRole"


def ack(construct: IConstruct, rule: str, reason: str) -> None:
    Validations.of(construct).acknowledge(Acknowledgment(id=f"AwsSolutions::AwsSolutions-{rule}", reason=reason))


def suppress(stack: MnemoStack) -> None:
    for job, function in stack.functions.items():
        ack(function, f"IAM4[{BASIC}]", "Grants only logs:CreateLogGroup/CreateLogStream/PutLogEvents, which every "
            "function needs to write its own log group.")
        if job != "authorizer":
            ack(function, f"IAM4[{VPC}]", "The ENI permissions Lambda needs to attach a function to the VPC; AWS "
                "documents them only on Resource '*'.")
        ack(function, "IAM5[Resource::*]", "X-Ray's PutTraceSegments/PutTelemetryRecords (active tracing) accept "
            "no resource but '*'.")
        if job != "authorizer":
            ack(function, "IAM5[Action::kms:GenerateDataKey*]", "CDK's grant for the storage key on the encrypted "
                "table and queues (SSE-KMS needs GenerateDataKey and GenerateDataKeyWithoutPlaintext).")
            ack(function, "IAM5[Action::kms:ReEncrypt*]", "CDK's grant for the storage key on the encrypted table "
                "and queues; scoped to that one key.")
        if job in OPENSEARCH_VERBS or job == "index_setup":
            ack(function, f"IAM5[Resource::<{_logical(stack, stack.domain)}.Arn>/{stack.index_name}/*]",
                "Documents and the _search/_count/_delete_by_query endpoints of mnemo's one k-NN index (its "
                "_mapping and _settings for the index set-up); no other index and no cluster API.")
    for job, function in stack.functions.items():
        for arn in bedrock_wildcards(stack, job):
            ack(function, f"IAM5[Resource::{arn}]", "A cross-region inference profile sends each request to "
                "any region of its geography, and Bedrock checks the model's ARN in that region too: the "
                "region is the only wildcard, the model is named.")
    ack(stack.key_table, "DDB3", "The wrapped per-user data keys are kept without point-in-time recovery on "
        "purpose: a recovery copy would keep an erased user's key, and with it every backup of their data, "
        "readable (README 'Backups and erasure'). Deletion protection and a retained table guard it instead.")
    ack(stack.domain, "OS3", "The domain is in a VPC (isolated subnets, no internet route), reachable only from the "
        "functions' security group, and every request must be SigV4-signed by a role granted access: an IP "
        "allow-list adds nothing.")
    if not stack.config.opensearch_dedicated_masters:
        ack(stack.domain, "OS4", f"Stage {stack.config.stage!r} runs without dedicated masters to save cost; the "
            "prod stage in cdk.json runs three.")
    if stack.config.opensearch_data_nodes < 2:
        ack(stack.domain, "OS7", f"Stage {stack.config.stage!r} runs one data node; zone awareness needs two.")
    for route in stack.public_routes:
        ack(route, "APIG4", "GET /health and GET /openapi.json carry no tenant data and must answer without a key.")
    provider = stack.node.find_child("IndexProvider")
    ack(provider, f"IAM5[Resource::<{_logical(stack, stack.functions['index_setup'])}.Arn>:*]",
        "The CDK provider framework invokes any version of the index function ('<arn>:*').")
    ack(provider, "L1", "The CDK provider framework picks its own Node.js runtime for its handler.")
    ack(provider, f"IAM4[{BASIC}]", "The CDK provider framework's handler writes its own logs.")
    sdk_singleton = stack.node.try_find_child("AWS679f53fac002430cb0da5b7982bd2287")
    if sdk_singleton is not None:
        ack(sdk_singleton, f"IAM4[{BASIC}]", "CDK's AwsCustomResource that sets the OpenSearch log groups' resource "
            "policy writes its own logs.")
        ack(sdk_singleton, "L1", "CDK's AwsCustomResource picks its own Node.js runtime.")
        for action in ("kms:Describe*", "kms:List*"):
            ack(sdk_singleton, f"IAM5[Action::{action}]", "CDK's AwsCustomResource for the encrypted log groups' "
                "resource policy reads key metadata only (no use of any key).")
    ack(stack.domain, "IAM5[Resource::*]", "CloudWatch Logs resource policies (for the domain's slow and app logs) "
        "have no ARN: PutResourcePolicy/DeleteResourcePolicy take '*'.")


def bedrock_wildcards(stack: MnemoStack, job: str) -> list[str]:
    """The foundation-model ARNs (any region) a function is granted, as cdk-nag prints them."""
    found = []
    s = stack.service_settings
    models = []
    if job in LLM_FUNCTIONS and (s.extractor == "bedrock" or s.conflict_judge == "bedrock"):
        models.append(s.bedrock_model_id)
    if job in EMBEDDING_FUNCTIONS and s.embedder == "titan":
        models.append(s.titan_model_id)
    for model in models:
        for arn in model_arns(model, "<AWS::Partition>", "<AWS::Region>", "<AWS::AccountId>"):
            if ":bedrock:*:" in arn:
                found.append(arn)
    return found


def _logical(stack: Stack, construct: IConstruct) -> str:
    child = construct.node.default_child
    return stack.get_logical_id(child) if child is not None else construct.node.id  # type: ignore[arg-type]
