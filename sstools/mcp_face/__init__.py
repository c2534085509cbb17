"""The MCP face: the chat's tools for any MCP host, every write held on the server for its
person's word (``/mcp`` over streamable HTTP; ``sstools mcp`` over stdio). See docs/mcp.md."""
