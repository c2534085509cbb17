"""Storage: SQLAlchemy models, async engine, Alembic migrations; SQLite or PostgreSQL by URL."""
