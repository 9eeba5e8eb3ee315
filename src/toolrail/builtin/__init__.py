"""Built-in tools: `complete` and `end_conversation` steer the agent loop."""

from toolrail.builtin.control import complete as complete
from toolrail.builtin.control import end_conversation as end_conversation

__all__ = ["complete", "end_conversation"]
