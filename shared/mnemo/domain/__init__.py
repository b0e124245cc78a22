"""Pure domain logic: records, policy, extraction rules, ranking. No I/O here."""
