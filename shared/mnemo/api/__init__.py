"""The HTTP contract of API.md, served by one Powertools resolver in both homes."""
