"""Alembic environment: runs on the connection the store hands over (SQLite or PostgreSQL)."""

from alembic import context

# Importing the package registers every feature's tables on the one metadata.
from locleg.store import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    # SQLite cannot ALTER most things in place: batch mode copies the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
)
with context.begin_transaction():
    context.run_migrations()
