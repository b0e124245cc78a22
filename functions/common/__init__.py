"""Lambda glue shared by the handlers."""
