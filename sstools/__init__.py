"""sstools: Apache Superset environments with a context-aware, guarded AI agent beside them."""

__version__ = "0.1.0"
