"""The AWS home: DynamoDB, KMS (and, next, OpenSearch, SQS, Bedrock). Imported only when chosen."""
