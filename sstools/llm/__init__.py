"""Chat-model providers that know nothing of the agent: the configured OpenAI-compatible
endpoint, and a model written as a function (the offline planner's and the tests')."""
