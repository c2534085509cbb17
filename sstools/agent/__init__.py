"""The agent: UIContext → tool selection → guardrails → executor → LangGraph → SSE events.

Each step of that pipeline has a module of its own; the domain knows nothing of the agent.
"""
