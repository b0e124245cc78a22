"""mnemo: long-term memory and personalization for chat applications."""

__version__ = "0.1.0"
