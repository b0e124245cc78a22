"""Alarms (to an encrypted SNS topic) and the dashboard with the per-stage metrics the handlers emit.

Custom metrics come from Powertools' embedded metric format: namespace "mnemo", dimension
service=mnemo; see functions/common/runtime.py (RetrieveStage_*, MemoriesInjected, MemoryTokens)
and functions/extract/handler.py (ExtractionLag, FactsWritten, ExtractionStale, ExtractionBusy,
TurnsExtracted, TurnsAcknowledgedUnextracted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aws_cdk import Duration
from aws_cdk import aws_cloudwatch as cw
from aws_cdk import aws_cloudwatch_actions as actions
from aws_cdk import aws_iam as iam
from aws_cdk import aws_sns as sns
from aws_cdk import aws_sns_subscriptions as subscriptions
from constructs import Construct

from infra.config import pascal

if TYPE_CHECKING:
    from infra.stack import MnemoStack

NAMESPACE = "mnemo"
DIMENSIONS = {"service": "mnemo"}
STAGES = ("gate", "embed", "search", "rerank", "profile_wait", "total")
FIVE_MINUTES = Duration.minutes(5)


def custom(name: str, statistic: str = "p95") -> cw.Metric:
    return cw.Metric(namespace=NAMESPACE, metric_name=name, dimensions_map=DIMENSIONS, statistic=statistic,
                     period=FIVE_MINUTES)


class Observability(Construct):
    def __init__(self, scope: Construct, construct_id: str, *, stack: MnemoStack) -> None:
        super().__init__(scope, construct_id)
        c, prefix = stack.config, f"mnemo-{stack.config.stage}"
        self._prefix = prefix
        self.topic = sns.Topic(self, "Alarms", topic_name=f"{prefix}-alarms", master_key=stack.storage_key,
                               enforce_ssl=True)
        # enforce_ssl writes a topic policy, which replaces SNS's default one: CloudWatch must be let in again,
        # for this account's alarms only
        self.topic.add_to_resource_policy(iam.PolicyStatement(
            sid="AllowCloudWatchAlarms", principals=[iam.ServicePrincipal("cloudwatch.amazonaws.com")],
            actions=["sns:Publish"], resources=[self.topic.topic_arn],
            conditions={"StringEquals": {"aws:SourceAccount": stack.account},
                        "ArnLike": {"aws:SourceArn": stack.alarm_arn_pattern()}}))
        if c.alarm_email:
            self.topic.add_subscription(subscriptions.EmailSubscription(c.alarm_email))
        self.alarms: dict[str, cw.Alarm] = {}

        for job, function in stack.functions.items():
            self._alarm(f"{pascal(job)}Errors", function.metric_errors(period=FIVE_MINUTES, statistic="Sum"),
                        threshold=1, what=f"the {job} function failed")
            self._alarm(f"{pascal(job)}Throttles", function.metric_throttles(period=FIVE_MINUTES, statistic="Sum"),
                        threshold=1, what=f"the {job} function was throttled (reserved concurrency)")
        dlqs = (("ExtractDlqNotEmpty", stack.extract_dlq), ("ConsolidateDlqNotEmpty", stack.consolidate_dlq))
        for name, queue in dlqs:
            self._alarm(name, queue.metric_approximate_number_of_messages_visible(period=FIVE_MINUTES,
                                                                                  statistic="Maximum"),
                        threshold=1, what="messages failed every retry: see docs/runbook.md")
        if stack.uses_bedrock():
            # every fallback to the rules (throttling, a timeout, AccessDenied on a model IAM does not cover)
            self._alarm("BedrockFallback", custom("BedrockFallback", "Sum"), threshold=1, periods=3,
                        what="Bedrock calls fail and the rules answer instead: see the extract logs' error code")
        self._alarm("ExtractionLag", custom("ExtractionLag"), threshold=c.extraction_lag_alarm_seconds,
                    what="turns wait too long for extraction after their debounce", periods=3)
        self._alarm("TurnsAcknowledgedUnextracted", custom("TurnsAcknowledgedUnextracted", "Sum"), threshold=1,
                    what="turns left the buffer without being extracted: learned nothing from them (must stay 0)")
        self._alarm("RetrieveLatencyP95", stack.functions["retrieve"].metric_duration(
            period=FIVE_MINUTES, statistic="p95"), threshold=c.retrieve_p95_alarm_ms,
            what="retrieve is slow: the dashboard's stage metrics say where", periods=3)
        self._alarm("Api5xx", cw.Metric(namespace="AWS/ApiGateway", metric_name="5xx", statistic="Sum",
                                        period=FIVE_MINUTES, dimensions_map={"ApiId": stack.api.api_id}),
                    threshold=5, what="the API answered 5xx")
        self.dashboard = self._dashboard(stack, prefix)

    def _alarm(self, name: str, metric: cw.IMetric, *, threshold: float, what: str, periods: int = 1) -> None:
        alarm = cw.Alarm(self, name, alarm_name=f"{self._prefix}-{name}", metric=metric,
                         threshold=threshold, evaluation_periods=periods, alarm_description=what,
                         comparison_operator=cw.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
                         treat_missing_data=cw.TreatMissingData.NOT_BREACHING)
        alarm.add_alarm_action(actions.SnsAction(self.topic))
        self.alarms[name] = alarm

    def _dashboard(self, stack: MnemoStack, prefix: str) -> cw.Dashboard:
        board = cw.Dashboard(self, "Dashboard", dashboard_name=prefix)
        api = {"ApiId": stack.api.api_id}
        board.add_widgets(
            cw.GraphWidget(title="API requests and errors", width=12, left=[
                cw.Metric(namespace="AWS/ApiGateway", metric_name=m, dimensions_map=api, statistic="Sum",
                          period=FIVE_MINUTES) for m in ("Count", "4xx", "5xx")]),
            cw.GraphWidget(title="API latency (ms)", width=12, left=[
                cw.Metric(namespace="AWS/ApiGateway", metric_name="Latency", dimensions_map=api, statistic=s,
                          period=FIVE_MINUTES) for s in ("p50", "p95", "p99")]))
        board.add_widgets(
            cw.GraphWidget(title="Retrieve stages p50 (ms)", width=12,
                           left=[custom(f"RetrieveStage_{s}", "p50") for s in STAGES]),
            cw.GraphWidget(title="Retrieve stages p95 (ms)", width=12,
                           left=[custom(f"RetrieveStage_{s}", "p95") for s in STAGES]))
        board.add_widgets(
            cw.GraphWidget(title="Memories injected and memory tokens (avg)", width=12,
                           left=[custom("MemoriesInjected", "Average")], right=[custom("MemoryTokens", "Average")]),
            cw.GraphWidget(title="Extraction", width=12, left=[custom("ExtractionLag", "p95")],
                           right=[custom(m, "Sum") for m in ("FactsWritten", "TurnsExtracted", "ExtractionStale",
                                                             "ExtractionBusy", "TurnsAcknowledgedUnextracted")]))
        board.add_widgets(
            cw.GraphWidget(title="Dead-letter queues", width=12, left=[
                q.metric_approximate_number_of_messages_visible(period=FIVE_MINUTES, statistic="Maximum")
                for q in (stack.extract_dlq, stack.consolidate_dlq)]),
            cw.GraphWidget(title="Function errors and throttles", width=12, left=[
                fn.metric_errors(period=FIVE_MINUTES, statistic="Sum") for fn in stack.functions.values()],
                right=[fn.metric_throttles(period=FIVE_MINUTES, statistic="Sum") for fn in stack.functions.values()]))
        board.add_widgets(cw.AlarmStatusWidget(title="Alarms", width=24, alarms=list(self.alarms.values())))
        return board
