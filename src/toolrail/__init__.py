"""toolrail: the layer between an LLM agent loop and its tools, with errors as values.

A tool call always ends in a `returns` `Result`: `Success(output)` or `Failure(ToolError)`.
"""

from typing import TYPE_CHECKING

from returns.result import Failure as Failure
from returns.result import Result as Result
from returns.result import Success as Success

from toolrail.core.call import ToolCall as ToolCall
from toolrail.core.call import ToolOutcome as ToolOutcome
from toolrail.core.context import ExecutionContext as ExecutionContext
from toolrail.core.control import Complete as Complete
from toolrail.core.control import EndConversation as EndConversation
from toolrail.core.decorator import tool as tool
from toolrail.core.errors import ApprovalRequired as ApprovalRequired
from toolrail.core.errors import ArgumentIssue as ArgumentIssue
from toolrail.core.errors import BudgetExceeded as BudgetExceeded
from toolrail.core.errors import Cancelled as Cancelled
from toolrail.core.errors import CircuitOpen as CircuitOpen
from toolrail.core.errors import ExecutionFailed as ExecutionFailed
from toolrail.core.errors import InternalError as InternalError
from toolrail.core.errors import InvalidArguments as InvalidArguments
from toolrail.core.errors import NotAllowed as NotAllowed
from toolrail.core.errors import PermissionDenied as PermissionDenied
from toolrail.core.errors import TimedOut as TimedOut
from toolrail.core.errors import ToolError as ToolError
from toolrail.core.errors import TransportError as TransportError
from toolrail.core.errors import UnknownTool as UnknownTool
from toolrail.core.params import ParameterSchema as ParameterSchema
from toolrail.core.tool import FunctionTool as FunctionTool
from toolrail.core.tool import Tool as Tool
from toolrail.core.tool import ToolAnnotations as ToolAnnotations
from toolrail.executor import Executor as Executor
from toolrail.models.base import Model as Model
from toolrail.models.scripted import ScriptedModel as ScriptedModel
from toolrail.models.scripted import ScriptedTurn as ScriptedTurn
from toolrail.models.testing import TestModel as TestModel
from toolrail.orchestrator import Agent as Agent
from toolrail.orchestrator import Orchestrator as Orchestrator
from toolrail.orchestrator import RunResult as RunResult
from toolrail.policy import Approve as Approve
from toolrail.policy import Budget as Budget
from toolrail.policy import Deny as Deny
from toolrail.policy import Gates as Gates
from toolrail.policy import Rules as Rules
from toolrail.recording.events import CircuitStateChanged as CircuitStateChanged
from toolrail.recording.events import McpServerStateChanged as McpServerStateChanged
from toolrail.recording.events import Sink as Sink
from toolrail.recording.events import ToolCallRequested as ToolCallRequested
from toolrail.recording.events import ToolCompleted as ToolCompleted
from toolrail.recording.events import ToolDefinitionChanged as ToolDefinitionChanged
from toolrail.recording.events import ToolEvent as ToolEvent
from toolrail.recording.events import ToolFailed as ToolFailed
from toolrail.recording.events import ToolHealthChanged as ToolHealthChanged
from toolrail.recording.events import ToolProgress as ToolProgress
from toolrail.recording.events import ToolRegistered as ToolRegistered
from toolrail.recording.events import ToolStarted as ToolStarted
from toolrail.recording.events import ToolUnregistered as ToolUnregistered
from toolrail.recording.jsonl import JsonlCallLog as JsonlCallLog
from toolrail.recording.stream import ToolStreamHandler as ToolStreamHandler
from toolrail.registry import AgentToolTable as AgentToolTable
from toolrail.registry import DuplicateToolError as DuplicateToolError
from toolrail.registry import ToolRegistry as ToolRegistry
from toolrail.routing import Match as Match
from toolrail.routing import Router as Router
from toolrail.routing import RoutingSettings as RoutingSettings

if TYPE_CHECKING:  # imported on first use: both load the MCP SDK
    from toolrail.mcp import McpHub as McpHub
    from toolrail.serve import McpToolServer as McpToolServer


def __getattr__(name: str) -> object:
    if name == "McpToolServer":
        from toolrail.serve import McpToolServer

        return McpToolServer
    if name == "McpHub":
        from toolrail.mcp import McpHub

        return McpHub
    raise AttributeError(f"module 'toolrail' has no attribute {name!r}")


__all__ = [
    "Agent",
    "AgentToolTable",
    "ApprovalRequired",
    "Approve",
    "ArgumentIssue",
    "Budget",
    "BudgetExceeded",
    "Cancelled",
    "CircuitOpen",
    "CircuitStateChanged",
    "Complete",
    "Deny",
    "DuplicateToolError",
    "EndConversation",
    "ExecutionContext",
    "ExecutionFailed",
    "Executor",
    "Failure",
    "FunctionTool",
    "Gates",
    "InternalError",
    "InvalidArguments",
    "JsonlCallLog",
    "Match",
    "McpHub",
    "McpServerStateChanged",
    "McpToolServer",
    "Model",
    "NotAllowed",
    "Orchestrator",
    "ParameterSchema",
    "PermissionDenied",
    "Result",
    "Router",
    "RoutingSettings",
    "Rules",
    "RunResult",
    "ScriptedModel",
    "ScriptedTurn",
    "Sink",
    "Success",
    "TestModel",
    "TimedOut",
    "Tool",
    "ToolAnnotations",
    "ToolCall",
    "ToolCallRequested",
    "ToolCompleted",
    "ToolDefinitionChanged",
    "ToolError",
    "ToolEvent",
    "ToolFailed",
    "ToolHealthChanged",
    "ToolOutcome",
    "ToolProgress",
    "ToolRegistered",
    "ToolRegistry",
    "ToolStarted",
    "ToolStreamHandler",
    "ToolUnregistered",
    "TransportError",
    "UnknownTool",
    "tool",
]
