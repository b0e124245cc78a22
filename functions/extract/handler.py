"""The debounced extraction consumer (SQS). A stale message is dropped by the service; a record that
fails is reported as a partial batch failure, so SQS retries it (and a poison message ends in the DLQ)
while its turns stay buffered, never lost."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.metrics import MetricUnit
from aws_lambda_powertools.utilities.batch import BatchProcessor, EventType, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import logger, metrics, service, tracer
from mnemo.adapters.aws.sqs_queue import job_from_body

processor = BatchProcessor(event_type=EventType.SQS)


def record_handler(record: SQSRecord) -> None:
    job = job_from_body(record.body)
    report = service().extraction.process(job)
    if report.stale:  # a newer schedule overtook this copy; that one extracts
        metrics.add_metric(name="ExtractionStale", unit=MetricUnit.Count, value=1)
        return
    if report.busy:  # another delivery holds the conversation; this copy was sent again for later
        metrics.add_metric(name="ExtractionBusy", unit=MetricUnit.Count, value=1)
        return
    lag = (service().ports.clock.now() - job.due_at).total_seconds()
    metrics.add_metric(name="ExtractionLag", unit=MetricUnit.Seconds, value=max(lag, 0.0))
    metrics.add_metric(name="FactsWritten", unit=MetricUnit.Count, value=len(report.results))
    metrics.add_metric(name="TurnsExtracted", unit=MetricUnit.Count, value=report.extracted)
    # sent even when 0, so the alarm on it has data: any other value means turns were lost
    metrics.add_metric(name="TurnsAcknowledgedUnextracted", unit=MetricUnit.Count, value=report.unextracted)


@logger.inject_lambda_context(log_event=False)
@tracer.capture_lambda_handler(capture_response=False)
@metrics.log_metrics
def handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    return process_partial_response(event=event, record_handler=record_handler, processor=processor,
                                    context=context)
