"""Alembic environment: migrates the URL that :func:`sstools.storage.db.migrate` passes in."""

from alembic import context
from sqlalchemy import create_engine, pool

from sstools.storage.models import Base

url = context.config.attributes["database_url"]
engine = create_engine(url, poolclass=pool.NullPool)
with engine.connect() as connection:
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        render_as_batch=connection.dialect.name == "sqlite",
    )
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
