"""checkov's findings on the synthesised templates that we accept, each with its reason (like infra/nag.py).

tests/infra/test_template_checks.py runs checkov on both stages and fails on any finding not matched
here, and on any acknowledgement that no longer matches a finding. Resources are CloudFormation
logical ids, matched as shell patterns (the CDK appends a hash).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatch

OUR_FUNCTIONS = ("RetrieveFunction*", "IngestFunction*", "FeedbackFunction*", "MemoriesFunction*", "ExtractFunction*",
                 "ConsolidateFunction*", "IndexSetupFunction*", "AuthorizerFunction*")
# CDK's own helper functions: the provider framework of the index resource, the AwsCustomResource singleton
CDK_FUNCTIONS = ("IndexProviderframeworkonEvent*", "AWS679f53fac002430cb0da5b7982bd2287*")


@dataclass(frozen=True)
class Ack:
    check: str
    resources: tuple[str, ...]
    reason: str

    def covers(self, check: str, resource: str) -> bool:
        return check == self.check and any(fnmatch(resource, pattern) for pattern in self.resources)


ACKS = (
    Ack("CKV_AWS_317", ("Search*",),
        "OpenSearch audit logs need fine-grained access control; the domain uses VPC + IAM instead (README "
        "'What gets deployed'), and every request is signed by one of the stack's roles."),
    Ack("CKV_AWS_28", ("Keys*",),
        "The wrapped per-user data keys have no point-in-time recovery on purpose: a recovery copy would keep "
        "an erased user's key, and with it every backup of their data, readable (README 'Backups and "
        "erasure'). Deletion protection and a retained table guard it instead."),
    Ack("CKV_AWS_116", (*OUR_FUNCTIONS, *CDK_FUNCTIONS),
        "A DLQ (DeadLetterConfig) catches failed asynchronous invocations only. API Gateway, the authorizer and "
        "the custom resources invoke synchronously (the caller sees the error), SQS event sources redrive to "
        "their queue's DLQ, and consolidate's scheduled runs have an on-failure destination (the consolidation "
        "DLQ), which checkov does not read."),
    Ack("CKV_AWS_173", (*OUR_FUNCTIONS, *CDK_FUNCTIONS),
        "The environment holds resource names, ARNs and thresholds, never a secret; Lambda encrypts it at rest "
        "with an AWS-managed key, and a customer key would add a KMS call to every cold start for nothing."),
    Ack("CKV_AWS_115", (*OUR_FUNCTIONS, *CDK_FUNCTIONS),
        "Reserved concurrency is opt-in per stage (cdk.json 'reserved_concurrency'): it takes from the "
        "account's quota, which new accounts have at 10-50. Dev reserves none; prod reserves for the data "
        "functions, not for the authorizer (cached per key), the index set-up or CDK's deploy-time helpers."),
    Ack("CKV_AWS_117", ("AuthorizerFunction*", *CDK_FUNCTIONS),
        "These reach only public AWS APIs (DynamoDB for the authorizer, CloudFormation/OpenSearch/Logs control "
        "planes for CDK's helpers) and nothing inside the VPC; the isolated subnets have no route to them."),
)


def unacknowledged(findings: list[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(check, resource) for check, resource in findings
            if not any(ack.covers(check, resource) for ack in ACKS)]


def unused(findings: list[tuple[str, str]]) -> list[Ack]:
    return [ack for ack in ACKS if not any(ack.covers(check, resource) for check, resource in findings)]
