"""The debounced extraction consumer (SQS). A stale message is dropped by the service; a record that
fails is reported as a partial batch failure, so SQS retries it (and a poison message ends in the DLQ)
while its turns stay buffered, never lost.

Time: a record is started only while the invocation has its worst case left (the LLM's timeout times
its attempts, plus the stores' margin); the rest of the batch goes straight back to the queue. A
throttled record comes back after a short pause, not after the queue's 720 s visibility timeout.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.batch import Deadline, OutOfTime, come_back_in, throttled_pause
from functions.common.runtime import load_document_model, logger, metrics, service, settings, tracer, warm_up
from mnemo.adapters.aws.sqs_queue import job_from_body
from mnemo.errors import Throttled

# locks, DynamoDB, KMS and OpenSearch round trips of one record, on top of any LLM call
STORES_MARGIN_SECONDS = 15

# a batch whose every record failed (or was handed back for lack of time) is answered, not raised: SQS
# retries the listed records either way, and a raise would count as a function error (alarm)
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)
warm_up(service, load_document_model)  # extraction embeds what it writes


def record_budget_ms() -> int:
    s = settings()
    llm = s.bedrock_timeout_seconds * s.bedrock_max_attempts if s.extractor == "bedrock" else 0.0
    return int((llm + STORES_MARGIN_SECONDS) * 1000)


def record_handler(record: SQSRecord, deadline: Deadline | None = None) -> None:
    if deadline is not None:
        try:
            deadline.check()
        except OutOfTime:
            metrics.add_metric(name="ExtractionDeferred", unit=MetricUnit.Count, value=1)
            come_back_in(record, settings().extract_queue_url, 0)
            raise
    job = job_from_body(record.body)
    service().caches.drop_erased()  # each job checks afresh what another function may have erased
    try:
        report = service().extraction.process(job)
    except Throttled:
        metrics.add_metric(name="ExtractionThrottled", unit=MetricUnit.Count, value=1)
        come_back_in(record, settings().extract_queue_url, throttled_pause())
        raise
    if report.stale:  # a newer schedule overtook this copy; that one extracts
        metrics.add_metric(name="ExtractionStale", unit=MetricUnit.Count, value=1)
        return
    if report.busy:  # another delivery holds the conversation; this copy was sent again for later
        metrics.add_metric(name="ExtractionBusy", unit=MetricUnit.Count, value=1)
        return
    lag = (service().ports.clock.now() - job.due_at).total_seconds()
    metrics.add_metric(name="ExtractionLag", unit=MetricUnit.Seconds, value=max(lag, 0.0))
    # what the writer refused (a retraction that retires nothing stored, a screened fact) is no fact written
    written = sum(result.outcome != "rejected" for result in report.results)
    metrics.add_metric(name="FactsWritten", unit=MetricUnit.Count, value=written)
    metrics.add_metric(name="TurnsExtracted", unit=MetricUnit.Count, value=report.extracted)
    # sent even when 0, so the alarm on it has data: any other value means turns were lost
    metrics.add_metric(name="TurnsAcknowledgedUnextracted", unit=MetricUnit.Count, value=report.unextracted)


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    deadline = Deadline(context, record_budget_ms())

    def within_time(record: SQSRecord) -> None:
        record_handler(record, deadline)

    return process_partial_response(event=event, record_handler=within_time, processor=processor,
                                    context=context)
