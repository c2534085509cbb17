"""The offline planner: the chat model used when no endpoint is configured, and the Russian
answers it renders from each tool's result."""
