"""The embedded home: SQLite, in-process search, a local key file, the bundled model."""
