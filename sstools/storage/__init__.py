"""Storage: SQLAlchemy models, the async engine, Alembic migrations. SQLite by default, PostgreSQL by URL."""
