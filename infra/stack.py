"""The mnemo stack: the AWS home of DESIGN.md, one stage per stack.

Network and access: the OpenSearch domain lives in a VPC (private isolated subnets, no NAT, no
internet route); the functions that reach it run in the same subnets and talk to AWS services
through VPC endpoints. The domain's resource policy delegates to IAM in this account and each
function's role grants HTTP access to the domain, so a request needs both the network path and a
SigV4 signature of a role we granted. (Fine-grained access control was the alternative; with
one service identity and per-user routing/filters in the code, it would add a master user and an
internal user database without narrowing anything.)

Two KMS keys: ``DataKey`` wraps the per-user data keys (GenerateDataKey/Decrypt only with a
tenant_id and user_id encryption context), ``StorageKey`` encrypts the table, queues, domain,
topic and logs at rest. Both rotate yearly.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from aws_cdk import (
    Annotations,
    CfnOutput,
    CustomResource,
    Duration,
    RemovalPolicy,
    Stack,
    Tags,
    Token,
)
from aws_cdk import aws_apigatewayv2 as apigw
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_events as events
from aws_cdk import aws_events_targets as targets
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_lambda_destinations as destinations
from aws_cdk import aws_lambda_event_sources as sources
from aws_cdk import aws_logs as logs
from aws_cdk import aws_opensearchservice as opensearch
from aws_cdk import aws_sqs as sqs
from aws_cdk import custom_resources as cr
from constructs import Construct

from infra.bedrock import model_arns
from infra.bundling import BUNDLES, FUNCTION_BUNDLES, ROOT, bundling_options, model_environment
from infra.config import StageConfig, pascal
from infra.nag import suppress
from infra.observability import Observability
from infra.roles import (
    DATA_FUNCTIONS,
    EMBEDDING_FUNCTIONS,
    HTTP_FUNCTIONS,
    LLM_FUNCTIONS,
    OPENSEARCH_ATTEMPTS,
    OPENSEARCH_VERBS,
    SEQUENTIAL_SEARCHES,
    TABLE_ACTIONS,
)
from mnemo.adapters.aws.dynamo_state import ATTRIBUTES, KEY_SCHEMA
from mnemo.adapters.aws.opensearch_store import index_body
from mnemo.settings import Settings

PYTHON = lambda_.Runtime.PYTHON_3_14  # the newest runtime (Amazon Linux 2023, the glibc onnxruntime needs)
PYTHON_VERSION = "3.14"


class MnemoStack(Stack):
    def __init__(self, scope: Construct, construct_id: str, *, config: StageConfig, bundle: bool = True,
                 **kwargs: Any) -> None:
        super().__init__(scope, construct_id, **kwargs)
        self.config = config
        self.service_settings = Settings.from_env(config.function_environment())
        removal = RemovalPolicy.RETAIN if config.retain_data else RemovalPolicy.DESTROY
        name = f"mnemo-{config.stage}"

        # -- keys
        self.data_key = kms.Key(self, "DataKey", alias=f"alias/{name}-data", enable_key_rotation=True,
                                description="mnemo: wraps each user's data key (envelope encryption)",
                                removal_policy=removal)
        self.storage_key = kms.Key(self, "StorageKey", alias=f"alias/{name}-storage", enable_key_rotation=True,
                                   description="mnemo: table, queues, domain, topic and logs at rest",
                                   removal_policy=removal)
        # CloudWatch Logs encrypts this stack's log groups with it, and nothing else of the account's
        self.storage_key.add_to_resource_policy(iam.PolicyStatement(
            principals=[iam.ServicePrincipal(f"logs.{self.region}.amazonaws.com")],
            actions=["kms:Encrypt*", "kms:Decrypt*", "kms:ReEncrypt*", "kms:GenerateDataKey*", "kms:Describe*"],
            resources=["*"], conditions={"ArnLike": {"kms:EncryptionContext:aws:logs:arn":
                                                     f"arn:{self.partition}:logs:{self.region}:{self.account}:*"}}))
        # the alarm topic is encrypted with it: CloudWatch must encrypt what it publishes there, but only for
        # this account's alarms (without this statement alarms change state and no email ever arrives)
        self.storage_key.add_to_resource_policy(iam.PolicyStatement(
            principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["kms:Decrypt", "kms:GenerateDataKey*"], resources=["*"],
            conditions={"StringEquals": {"aws:SourceAccount": self.account},
                        "ArnLike": {"aws:SourceArn": self.alarm_arn_pattern()}}))

        # -- state table (profiles, sessions, buffers, traces, keys, settings, audit, weights, API keys)
        self.table = dynamodb.Table(
            self, "State", table_name=f"{name}-state",
            partition_key=dynamodb.Attribute(name=KEY_SCHEMA[0]["AttributeName"], type=_attribute_type(0)),
            sort_key=dynamodb.Attribute(name=KEY_SCHEMA[1]["AttributeName"], type=_attribute_type(1)),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST, time_to_live_attribute="ttl",
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True),
            encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED, encryption_key=self.storage_key,
            deletion_protection=config.retain_data, removal_policy=removal)
        # -- the wrapped per-user data keys, apart from the data and deliberately without point-in-time
        # recovery, backups or a stream: an erase deletes a user's one wrapped key for good, so a restored
        # state table or index snapshot from before the erase has nothing to open the user's data with
        # (README "Backups and erasure"). Deletion protection and a retained table stand in for backups.
        self.key_table = dynamodb.Table(
            self, "Keys", table_name=f"{name}-keys",
            partition_key=dynamodb.Attribute(name=KEY_SCHEMA[0]["AttributeName"], type=_attribute_type(0)),
            sort_key=dynamodb.Attribute(name=KEY_SCHEMA[1]["AttributeName"], type=_attribute_type(1)),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=False),
            encryption=dynamodb.TableEncryption.CUSTOMER_MANAGED, encryption_key=self.storage_key,
            deletion_protection=config.retain_data, removal_policy=removal)
        # an AWS Backup plan that selects resources by tag can leave it out by this one
        Tags.of(self.key_table).add("mnemo:backup", "never")

        # -- queues
        self.extract_dlq, self.extract_queue = self._queue_pair("Extract", f"{name}-extract",
                                                                config.sizes["extract"].timeout_seconds, removal)
        self.consolidate_dlq, self.consolidate_queue = self._queue_pair(
            "Consolidate", f"{name}-consolidate", config.sizes["consolidate"].timeout_seconds, removal)

        # -- network
        if config.availability_zones > 2 and Token.is_unresolved(self.region):
            raise ValueError("three availability zones need a concrete environment: -c account=... -c region=... "
                             "(an environment-agnostic template can only name two)")
        if Token.is_unresolved(self.region) or Token.is_unresolved(self.account):
            # Fn::GetAZs picks the region's first zones, where an endpoint service may not exist
            Annotations.of(self).add_warning_v2("mnemo:agnostic", "environment-agnostic: deploy with -c account=... "
                                                "-c region=... so CDK looks up the zones (docs/first-deploy.md)")
        zones = ({"availability_zones": config.availability_zone_names} if config.availability_zone_names
                 else {"max_azs": config.availability_zones})
        self.vpc = ec2.Vpc(self, "Vpc", nat_gateways=0, **zones,
                           subnet_configuration=[ec2.SubnetConfiguration(
                               name="private", subnet_type=ec2.SubnetType.PRIVATE_ISOLATED, cidr_mask=22)])
        flow_logs = logs.LogGroup(self, "FlowLogs", retention=_retention(config.log_retention_days),
                                  encryption_key=self.storage_key, removal_policy=RemovalPolicy.DESTROY)
        self.vpc.add_flow_log("FlowLog", destination=ec2.FlowLogDestination.to_cloud_watch_logs(flow_logs))
        self.functions_sg = ec2.SecurityGroup(self, "FunctionsSg", vpc=self.vpc, allow_all_outbound=False,
                                              description="mnemo functions: HTTPS to the domain and endpoints")
        self.private_sg = ec2.SecurityGroup(self, "PrivateSg", vpc=self.vpc, allow_all_outbound=False,
                                            description="mnemo domain and VPC endpoints: HTTPS from the functions")
        self.private_sg.add_ingress_rule(self.functions_sg, ec2.Port.tcp(443), "functions to domain and endpoints")
        self.vpc.add_gateway_endpoint("DynamoDbEndpoint", service=ec2.GatewayVpcEndpointAwsService.DYNAMODB)
        # the domain and interface endpoints (behind private_sg) and DynamoDB's gateway endpoint, which has
        # no security group: the subnets have no route to the internet, so HTTPS "anywhere" reaches these only
        self.functions_sg.add_egress_rule(ec2.Peer.any_ipv4(), ec2.Port.tcp(443),
                                          "HTTPS to the domain and the endpoints (isolated subnets: nothing else)")
        # X-Ray needs no endpoint (the SDK sends segments over UDP to the Lambda-local daemon); Bedrock's only
        # when a stage calls it. With a pinned environment CDK looks up the zones each service exists in,
        # unless the stage names its zones (chosen where every service exists: docs/first-deploy.md)
        endpoints = [("Kms", ec2.InterfaceVpcEndpointAwsService.KMS), ("Sqs", ec2.InterfaceVpcEndpointAwsService.SQS)]
        if self.uses_bedrock():
            endpoints.append(("BedrockRuntime", ec2.InterfaceVpcEndpointAwsService.BEDROCK_RUNTIME))
        concrete = not (Token.is_unresolved(self.region) or Token.is_unresolved(self.account))
        lookup = concrete and not config.availability_zone_names
        for endpoint_id, service in endpoints:
            self.vpc.add_interface_endpoint(f"{endpoint_id}Endpoint", service=service, private_dns_enabled=True,
                                            security_groups=[self.private_sg], open=False,
                                            lookup_supported_azs=lookup)

        # -- OpenSearch
        self.domain = self._domain(name, removal)
        self.index_name = f"{name}-memories"  # one index a stage (a stage cannot name it: infra/config.WIRED)
        dimension = self.service_settings.titan_dimensions if self.service_settings.embedder == "titan" else 384

        # -- functions: each on the bundle with the models it loads, its environment naming only those (the
        # four ONNX models and the packages in one bundle would pass Lambda's 250 MB unzipped limit; the
        # search encoder is in retrieve's, the extraction encoder in the writers': infra/bundling.py)
        self.function_env = self._environment()
        self.bundle_of = dict(FUNCTION_BUNDLES)
        self.code = {name: lambda_.Code.from_asset(
            str(ROOT), exclude=["**", "!shared", "!shared/mnemo", "!shared/mnemo/**", "!functions", "!functions/**",
                                "!requirements.lock", "**/__pycache__", "**/*.pyc"],
            bundling=bundling_options(config.architecture, PYTHON_VERSION, name) if bundle else None)
            for name in BUNDLES}
        self.functions: dict[str, lambda_.Function] = {}
        for job in ("retrieve", "ingest", "feedback", "memories", "extract", "consolidate", "index_setup"):
            self.functions[job] = self._function(job, in_vpc=True)
        self.functions["authorizer"] = self._function("authorizer", in_vpc=False)
        self._grant()

        # -- the k-NN index, created by the adapter's own code at deploy time
        provider = cr.Provider(self, "IndexProvider", on_event_handler=self.functions["index_setup"],
                               log_group=self._log_group("IndexProviderLogs"))
        self._expire_helper_logs()
        shards, replicas = self.service_settings.opensearch_shards, self.service_settings.opensearch_replicas
        body = index_body(dimension, shards, replicas)
        self.index = CustomResource(self, "KnnIndex", service_token=provider.service_token, properties={
            "IndexName": self.index_name, "Dimension": str(dimension), "Shards": str(shards),
            "Replicas": str(replicas),
            # a changed mapping re-runs the resource (ensure_index leaves an existing index as it is)
            "MappingHash": hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:16]})
        self.index.node.add_dependency(self.domain)

        # -- events: the debounced extraction, the consolidation fan-out, the schedules
        # an LLM call per record (20 s, two attempts) would overrun the function with ten records: two then
        self.extract_batch_size = 2 if self.service_settings.extractor == "bedrock" else 10
        self.functions["extract"].add_event_source(sources.SqsEventSource(
            self.extract_queue, batch_size=self.extract_batch_size, max_batching_window=Duration.seconds(1),
            report_batch_item_failures=True,
            max_concurrency=max(2, config.reserved_concurrency.get("extract", 2))))
        self.functions["consolidate"].add_event_source(sources.SqsEventSource(
            self.consolidate_queue, batch_size=5, report_batch_item_failures=True, max_concurrency=2))
        # a scheduled run that fails every retry (async invocation) lands in the consolidation DLQ, alarmed
        self.functions["consolidate"].configure_async_invoke(
            on_failure=destinations.SqsDestination(self.consolidate_dlq), retry_attempts=2,
            max_event_age=Duration.hours(6))
        for rule_id, schedule, job in (("ConsolidateSchedule", config.consolidate_schedule, "consolidate"),
                                       ("TuneSchedule", config.tune_schedule, "tune")):
            events.Rule(self, rule_id, schedule=events.Schedule.expression(schedule),
                        description=f"mnemo {job} for every tenant", targets=[targets.LambdaFunction(
                            self.functions["consolidate"], event=events.RuleTargetInput.from_object({"job": job}),
                            retry_attempts=2)])

        # -- API
        self.api = self._api(name)
        self.observability = Observability(self, "Ops", stack=self)
        suppress(self)

        CfnOutput(self, "ApiUrl", value=self.api.api_endpoint)
        CfnOutput(self, "StateTable", value=self.table.table_name)
        CfnOutput(self, "KeyTable", value=self.key_table.table_name)
        CfnOutput(self, "ExtractQueueUrl", value=self.extract_queue.queue_url)
        CfnOutput(self, "ExtractDlqUrl", value=self.extract_dlq.queue_url)
        CfnOutput(self, "ConsolidateQueueUrl", value=self.consolidate_queue.queue_url)
        CfnOutput(self, "ConsolidateDlqUrl", value=self.consolidate_dlq.queue_url)
        CfnOutput(self, "OpenSearchEndpoint", value=self.domain.domain_endpoint)
        CfnOutput(self, "IndexName", value=self.index_name)

    # -- pieces --------------------------------------------------------------------------------------
    def _queue_pair(self, construct_id: str, name: str, consumer_timeout: int,
                    removal: RemovalPolicy) -> tuple[sqs.Queue, sqs.Queue]:
        dlq = sqs.Queue(self, f"{construct_id}Dlq", queue_name=f"{name}-dlq", retention_period=Duration.days(14),
                        encryption=sqs.QueueEncryption.KMS, encryption_master_key=self.storage_key,
                        enforce_ssl=True, removal_policy=removal)
        queue = sqs.Queue(self, f"{construct_id}Queue", queue_name=name,
                          # AWS's advice for Lambda consumers: at least six times the function's timeout
                          visibility_timeout=Duration.seconds(6 * consumer_timeout),
                          retention_period=Duration.days(4), encryption=sqs.QueueEncryption.KMS,
                          encryption_master_key=self.storage_key, enforce_ssl=True, removal_policy=removal,
                          data_key_reuse=Duration.minutes(30),
                          dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=self.config.dlq_max_receive_count,
                                                                queue=dlq))
        return dlq, queue

    def _domain(self, name: str, removal: RemovalPolicy) -> opensearch.Domain:
        c = self.config
        zone_aware = c.opensearch_data_nodes > 1
        subnets = self.vpc.isolated_subnets if zone_aware else self.vpc.isolated_subnets[:1]
        if c.create_opensearch_service_role:
            self.service_linked_role: iam.CfnServiceLinkedRole | None = iam.CfnServiceLinkedRole(
                self, "OpenSearchServiceRole", aws_service_name="opensearchservice.amazonaws.com",
                description="lets OpenSearch Service place the domain's network interfaces in the VPC")
        else:
            self.service_linked_role = None
        slow_logs = logs.LogGroup(self, "SearchSlowLogs", retention=_retention(c.log_retention_days),
                                  encryption_key=self.storage_key, removal_policy=RemovalPolicy.DESTROY)
        app_logs = logs.LogGroup(self, "SearchAppLogs", retention=_retention(c.log_retention_days),
                                 encryption_key=self.storage_key, removal_policy=RemovalPolicy.DESTROY)
        domain = opensearch.Domain(
            self, "Search", domain_name=f"{name}-search"[:28], version=opensearch.EngineVersion.OPENSEARCH_2_19,
            capacity=opensearch.CapacityConfig(
                data_nodes=c.opensearch_data_nodes, data_node_instance_type=c.opensearch_instance_type,
                master_nodes=c.opensearch_dedicated_masters or None,
                master_node_instance_type=c.opensearch_master_instance_type if c.opensearch_dedicated_masters
                else None, multi_az_with_standby_enabled=False),
            ebs=opensearch.EbsOptions(volume_size=c.opensearch_volume_gb, volume_type=ec2.EbsDeviceVolumeType.GP3),
            zone_awareness=opensearch.ZoneAwarenessConfig(
                enabled=zone_aware, availability_zone_count=min(c.availability_zones, 3) if zone_aware else None),
            vpc=self.vpc, vpc_subnets=[ec2.SubnetSelection(subnets=subnets)], security_groups=[self.private_sg],
            encryption_at_rest=opensearch.EncryptionAtRestOptions(enabled=True, kms_key=self.storage_key),
            node_to_node_encryption=True, enforce_https=True, tls_security_policy=opensearch.TLSSecurityPolicy.TLS_1_2,
            logging=opensearch.LoggingOptions(slow_search_log_enabled=True, slow_search_log_group=slow_logs,
                                              slow_index_log_enabled=True, slow_index_log_group=slow_logs,
                                              app_log_enabled=True, app_log_group=app_logs),
            removal_policy=removal)
        if self.service_linked_role is not None:
            domain.node.add_dependency(self.service_linked_role)
        # delegate to IAM in this account: only roles whose policies grant es:ESHttp* on the domain get in
        domain.add_access_policies(iam.PolicyStatement(
            principals=[iam.AccountRootPrincipal()], actions=["es:ESHttp*"], resources=[f"{domain.domain_arn}/*"]))
        return domain

    def _environment(self) -> dict[str, str]:
        """What every function is told; each adds its bundle's models (_function)."""
        return {
            **self.config.function_environment(),
            "MNEMO_BACKEND": "aws",
            "MNEMO_AWS_REGION": self.region,
            "MNEMO_STATE_TABLE": self.table.table_name,
            "MNEMO_KEY_TABLE": self.key_table.table_name,
            "MNEMO_KMS_KEY_ID": self.data_key.key_arn,
            "MNEMO_OPENSEARCH_URL": f"https://{self.domain.domain_endpoint}",
            "MNEMO_OPENSEARCH_INDEX": self.index_name,
            "MNEMO_EXTRACT_QUEUE_URL": self.extract_queue.queue_url,
            "MNEMO_CONSOLIDATE_QUEUE_URL": self.consolidate_queue.queue_url,
            "MNEMO_DATA_DIR": "/tmp/mnemo",  # noqa: S108 - Lambda's only writable path; nothing durable kept there
            "POWERTOOLS_SERVICE_NAME": "mnemo",
            "POWERTOOLS_METRICS_NAMESPACE": "mnemo",
            "POWERTOOLS_LOG_LEVEL": self.service_settings.log_level,
        }

    def _log_group(self, construct_id: str) -> logs.LogGroup:
        return logs.LogGroup(self, construct_id, retention=_retention(self.config.log_retention_days),
                             encryption_key=self.storage_key, removal_policy=RemovalPolicy.DESTROY)

    def _expire_helper_logs(self) -> None:
        """CDK's own helper functions (here the AwsCustomResource behind the domain's log policy) would log to
        /aws/lambda/<name>, created on first use and kept forever: point them at a group that expires."""
        for child in self.node.children:
            if isinstance(child, lambda_.Function) and child.node.id.startswith("AWS679f53fac002430cb0da5b7982bd2287"):
                cfn = child.node.default_child
                assert isinstance(cfn, lambda_.CfnFunction)
                group = self._log_group("AwsCustomResourceLogs")
                cfn.add_property_override("LoggingConfig", {"LogGroup": group.log_group_name})

    def uses_bedrock(self) -> bool:
        s = self.service_settings
        return s.extractor == "bedrock" or s.conflict_judge == "bedrock" or s.embedder == "titan"

    def opensearch_timeout(self, job: str) -> float:
        """Per attempt, so that a request's sequential searches, each tried three times, end within the
        function's timeout (a request that overruns fails whole, with no answer at all)."""
        timeout = self.config.sizes[job].timeout_seconds
        budget = timeout / (SEQUENTIAL_SEARCHES * OPENSEARCH_ATTEMPTS) if job in HTTP_FUNCTIONS else timeout / 4
        return max(0.5, min(self.service_settings.opensearch_timeout_seconds, int(budget * 10) / 10))

    def _function(self, job: str, *, in_vpc: bool) -> lambda_.Function:
        size = self.config.sizes[job]
        log_group = self._log_group(f"{pascal(job)}Logs")
        # the model settings last: a function's bundle decides which models it has (search's encoder in
        # retrieve's, the extraction encoder in the writers'), whatever the stage's settings say
        environment = {**self.function_env, "MNEMO_OPENSEARCH_TIMEOUT_SECONDS": str(self.opensearch_timeout(job)),
                       **model_environment(self.bundle_of[job])}
        Settings.from_env(environment)  # each function's environment passes the model the functions use
        code = self.code[self.bundle_of[job]]
        return lambda_.Function(
            self, f"{pascal(job)}Function", function_name=f"mnemo-{self.config.stage}-{job.replace('_', '-')}",
            runtime=PYTHON, architecture=lambda_.Architecture.ARM_64 if self.config.architecture == "arm64"
            else lambda_.Architecture.X86_64, code=code, handler=f"functions.{job}.handler.handler",
            memory_size=size.memory_mb, timeout=Duration.seconds(size.timeout_seconds),
            reserved_concurrent_executions=self.config.reserved_concurrency.get(job), environment=environment,
            tracing=lambda_.Tracing.ACTIVE, log_group=log_group,
            vpc=self.vpc if in_vpc else None,
            vpc_subnets=ec2.SubnetSelection(subnet_type=ec2.SubnetType.PRIVATE_ISOLATED) if in_vpc else None,
            security_groups=[self.functions_sg] if in_vpc else None,
            description=f"mnemo {job}")

    def _grant(self) -> None:
        f, s = self.functions, self.service_settings
        index_arn = f"{self.domain.domain_arn}/{self.index_name}"
        # the one index and the bulk endpoint; never another index, never the cluster's settings
        domain_paths = [index_arn, f"{index_arn}/*", f"{self.domain.domain_arn}/_bulk"]
        for job in DATA_FUNCTIONS:
            function = f[job]
            # every item but the API keys' (only the authorizer reads them, only the key CLI writes them); the
            # condition holds for each key a request touches, and no Scan is granted (it has no key)
            function.add_to_role_policy(iam.PolicyStatement(
                actions=TABLE_ACTIONS, resources=[self.table.table_arn],
                conditions={"ForAllValues:StringNotLike": {"dynamodb:LeadingKeys": ["_apikey#*"]}}))
            self.storage_key.grant_encrypt_decrypt(function)  # the table's encryption at rest
            # the wrapped data keys: read, create (conditional put), erase, and the move of an older key out
            # of the state table (a transaction across both tables)
            function.add_to_role_policy(iam.PolicyStatement(
                actions=["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:DeleteItem",
                         "dynamodb:ConditionCheckItem"], resources=[self.key_table.table_arn],
                conditions={"ForAllValues:StringNotLike": {"dynamodb:LeadingKeys": ["_apikey#*"]}}))
            if job in OPENSEARCH_VERBS:
                function.add_to_role_policy(iam.PolicyStatement(
                    actions=[f"es:ESHttp{verb.title()}" for verb in OPENSEARCH_VERBS[job]], resources=domain_paths))
            # per-user data keys only: every call must name the tenant and the user
            function.add_to_role_policy(iam.PolicyStatement(
                actions=["kms:GenerateDataKey", "kms:Decrypt"], resources=[self.data_key.key_arn],
                conditions={"Null": {"kms:EncryptionContext:tenant_id": "false",
                                     "kms:EncryptionContext:user_id": "false"}}))
        # ensure_index: HEAD the index, PUT it, read and update its _mapping/_settings; nothing else
        f["index_setup"].add_to_role_policy(iam.PolicyStatement(
            actions=["es:ESHttpHead", "es:ESHttpGet", "es:ESHttpPut"], resources=domain_paths[:2]))
        # the authorizer reads API keys only
        f["authorizer"].add_to_role_policy(iam.PolicyStatement(
            actions=["dynamodb:GetItem"], resources=[self.table.table_arn],
            conditions={"ForAllValues:StringLike": {"dynamodb:LeadingKeys": ["_apikey#*"]}}))
        self.storage_key.grant_decrypt(f["authorizer"])
        self.extract_queue.grant_send_messages(f["ingest"])
        self.consolidate_queue.grant_send_messages(f["consolidate"])
        grants: dict[str, set[str]] = {}
        if s.extractor == "bedrock" or s.conflict_judge == "bedrock":
            for job in LLM_FUNCTIONS:
                grants.setdefault(job, set()).update(self._model_arns(s.bedrock_model_id))
        if s.embedder == "titan":
            for job in EMBEDDING_FUNCTIONS:
                grants.setdefault(job, set()).update(self._model_arns(s.titan_model_id))
        for job, arns in grants.items():
            f[job].add_to_role_policy(iam.PolicyStatement(actions=["bedrock:InvokeModel"], resources=sorted(arns)))

    def _model_arns(self, model_id: str) -> list[str]:
        return model_arns(model_id, self.partition, self.region, self.account)

    def alarm_arn_pattern(self) -> str:
        return f"arn:{self.partition}:cloudwatch:{self.region}:{self.account}:alarm:*"

    def _api(self, name: str) -> apigw.HttpApi:
        c, f = self.config, self.functions
        authorizer = authorizers.HttpLambdaAuthorizer(
            "TenantAuthorizer", f["authorizer"], authorizer_name=f"{name}-tenant",
            response_types=[authorizers.HttpLambdaResponseType.SIMPLE],
            identity_source=["$request.header.Authorization"],
            results_cache_ttl=Duration.seconds(c.authorizer_cache_seconds))
        api = apigw.HttpApi(self, "Api", api_name=f"{name}-api", default_authorizer=authorizer,
                            create_default_stage=False)
        access_logs = logs.LogGroup(self, "ApiAccessLogs", retention=_retention(c.log_retention_days),
                                    encryption_key=self.storage_key, removal_policy=RemovalPolicy.DESTROY)
        stage = apigw.HttpStage(self, "ApiStage", http_api=api, stage_name="$default", auto_deploy=True,
                                throttle=apigw.ThrottleSettings(rate_limit=c.throttle_rate,
                                                                burst_limit=c.throttle_burst))
        cfn_stage = stage.node.default_child
        assert isinstance(cfn_stage, apigw.CfnStage)
        # who, what and how it went; never a body, a header value or a query string
        cfn_stage.access_log_settings = apigw.CfnStage.AccessLogSettingsProperty(
            destination_arn=access_logs.log_group_arn, format=json.dumps({
                "requestId": "$context.requestId", "ip": "$context.identity.sourceIp",
                "time": "$context.requestTime", "method": "$context.httpMethod", "route": "$context.routeKey",
                "status": "$context.status", "latencyMs": "$context.responseLatency",
                "integrationLatencyMs": "$context.integrationLatency", "tenant": "$context.authorizer.tenant_id",
                "error": "$context.error.message", "authorizerError": "$context.authorizer.error"}))

        def integrate(job: str) -> integrations.HttpLambdaIntegration:
            target: lambda_.IFunction = f[job]
            if job == "retrieve" and c.retrieve_provisioned_concurrency:
                target = lambda_.Alias(self, "RetrieveLive", alias_name="live", version=f[job].current_version,
                                       provisioned_concurrent_executions=c.retrieve_provisioned_concurrency)
            return integrations.HttpLambdaIntegration(
                f"{pascal(job)}Integration", target,
                payload_format_version=apigw.PayloadFormatVersion.VERSION_2_0)

        routes = {
            "retrieve": [("POST", "/v1/users/{user_id}/retrieve"), ("POST", "/v1/users/{user_id}/search")],
            "ingest": [("POST", "/v1/users/{user_id}/turns"),
                       ("POST", "/v1/users/{user_id}/conversations/{conversation_id}/close")],
            "feedback": [("POST", "/v1/users/{user_id}/feedback")],
            "memories": [("ANY", "/v1/{proxy+}")],
        }
        for job, pairs in routes.items():
            integration = integrate(job)
            for method, path in pairs:
                api.add_routes(path=path, methods=[apigw.HttpMethod(method)], integration=integration)
        public = integrate("memories")
        self.public_routes: list[apigw.HttpRoute] = []
        for path in ("/health", "/openapi.json"):  # no tenant data behind these
            self.public_routes += api.add_routes(path=path, methods=[apigw.HttpMethod.GET], integration=public,
                                                 authorizer=apigw.HttpNoneAuthorizer())
        return api


def _attribute_type(position: int) -> dynamodb.AttributeType:
    name = KEY_SCHEMA[position]["AttributeName"]
    kind = next(a["AttributeType"] for a in ATTRIBUTES if a["AttributeName"] == name)
    return {"S": dynamodb.AttributeType.STRING, "N": dynamodb.AttributeType.NUMBER}[kind]


RETENTION = {1: "ONE_DAY", 3: "THREE_DAYS", 5: "FIVE_DAYS", 7: "ONE_WEEK", 14: "TWO_WEEKS", 30: "ONE_MONTH",
             60: "TWO_MONTHS", 90: "THREE_MONTHS", 180: "SIX_MONTHS", 365: "ONE_YEAR", 731: "TWO_YEARS",
             1827: "FIVE_YEARS", 3653: "TEN_YEARS"}


def _retention(days: int) -> logs.RetentionDays:
    if days not in RETENTION:
        raise ValueError(f"CloudWatch Logs keeps logs {sorted(RETENTION)} days, not {days}")
    return logs.RetentionDays[RETENTION[days]]
