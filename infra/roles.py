"""What each function does, in one table: the stack grants from it, cdk-nag's acknowledgements follow it."""

from __future__ import annotations

HTTP_FUNCTIONS = ("retrieve", "ingest", "feedback", "memories")
# an HTTP request makes at most this many sequential OpenSearch calls (retrieve: search, profile, mget)
SEQUENTIAL_SEARCHES = 3
# the transport's attempts per OpenSearch call (opensearch_transport: max_retries=2)
OPENSEARCH_ATTEMPTS = 3
# what each function does with the domain: no function but the index's own creates or drops anything
OPENSEARCH_VERBS = {
    "retrieve": ("GET", "HEAD", "POST"),  # _search, _mget, _count; _bulk for use counts
    "feedback": ("GET", "HEAD", "POST"),
    "extract": ("GET", "HEAD", "POST"),
    "memories": ("GET", "HEAD", "POST", "DELETE"),  # a user deletes one memory (DELETE _doc)
    "consolidate": ("GET", "HEAD", "POST", "DELETE"),  # pruning
}
# the functions that call an LLM (extraction, conflict judge, summaries), and those that embed with Titan
LLM_FUNCTIONS = ("memories", "extract", "consolidate")
EMBEDDING_FUNCTIONS = ("retrieve", "feedback", "memories", "extract", "consolidate")
DATA_FUNCTIONS = ("retrieve", "ingest", "feedback", "memories", "extract", "consolidate")
# the state table's item actions the data functions use (adapters/aws: get, put, update, delete, query; a
# transaction is authorised by the actions inside it plus ConditionCheckItem, no action of its own)
TABLE_ACTIONS = ["dynamodb:GetItem", "dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem",
                 "dynamodb:Query", "dynamodb:ConditionCheckItem", "dynamodb:DescribeTable"]
