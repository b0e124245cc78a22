"""The CDK app that deploys mnemo on AWS (API Gateway, Lambda, SQS, DynamoDB, OpenSearch, KMS, EventBridge)."""
