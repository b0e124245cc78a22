"""CloudFormation custom resource: create the k-NN index with the adapter's own mapping code.

Create and Update run ``ensure_index``: it creates a missing index, brings an existing one's
slow-log thresholds up to the settings, and refuses an index of another dimension or one a write
auto-created (a new model gets a new index and a re-embed job). BM25 k1/b come from the
function's settings, like the embedded home's. Delete keeps
the index: memories are never dropped by a stack operation (remove the domain to remove them).
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.typing import LambdaContext

from functions.common.runtime import logger, settings
from mnemo.adapters.aws.opensearch_store import IndexTuning, ensure_index


def transport() -> Any:
    from mnemo.adapters.aws.opensearch_transport import SignedOpenSearchTransport

    return SignedOpenSearchTransport(settings().opensearch_url, settings().aws_region)


@logger.inject_lambda_context(log_event=False)
def handler(event: dict[str, Any], context: LambdaContext, http: Any = None) -> dict[str, Any]:
    props = event.get("ResourceProperties", {})
    index, dimension = str(props["IndexName"]), int(props["Dimension"])
    shards, replicas = int(props.get("Shards", 4)), int(props.get("Replicas", 1))
    if event["RequestType"] in ("Create", "Update"):
        outcome = ensure_index(http or transport(), index, dimension, shards, replicas,
                               IndexTuning.from_settings(settings()))
        logger.info("k-NN index ready", extra={"index": index, "outcome": outcome})
    return {"PhysicalResourceId": f"knn-index:{index}", "Data": {"IndexName": index}}
