"""What every router of the three faces shares: FastAPI dependencies, the services they hand
out, and the sign-in and task routes (the domain, the agent and the web UI all lean on these)."""
