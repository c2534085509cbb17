"""Users, roles, JWT issue/verify and the FastAPI dependencies that guard every route."""
