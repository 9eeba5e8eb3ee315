"""Provider dialects: export tools, parse tool calls, format tool results.

`toolrail.dialects.openai`, `.anthropic` and `.gemini` each offer `export_tools`,
`parse_tool_calls` and `format_tool_result`, plus what an agent loop needs to talk to that
provider (`build_request`, `parse_text`) and what a scripted model needs to sound like it
(`response_from`).
"""

from toolrail.dialects.base import Dialect as Dialect
from toolrail.dialects.base import Export as Export

__all__ = ["Dialect", "Export"]
