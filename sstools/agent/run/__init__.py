"""The machinery of a run: who holds a conversation, the stream it writes, its checkpoints,
wake-ups after a restart, and the wiring that puts them together."""
