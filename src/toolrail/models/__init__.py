"""Models an agent loop talks to: the `Model` protocol, `ScriptedModel`, `TestModel`, and
the provider adapters (their SDKs are imported only when a model is made)."""

from toolrail.core.messages import AssistantMessage as AssistantMessage
from toolrail.core.messages import Handoff as Handoff
from toolrail.core.messages import Message as Message
from toolrail.core.messages import ToolResults as ToolResults
from toolrail.core.messages import UserMessage as UserMessage
from toolrail.models.base import Model as Model
from toolrail.models.base import ModelRequest as ModelRequest
from toolrail.models.base import StreamingModel as StreamingModel
from toolrail.models.providers import AnthropicModel as AnthropicModel
from toolrail.models.providers import GeminiModel as GeminiModel
from toolrail.models.providers import OpenAIChatModel as OpenAIChatModel
from toolrail.models.providers import OpenAIResponsesModel as OpenAIResponsesModel
from toolrail.models.providers import ProviderCallsBlocked as ProviderCallsBlocked
from toolrail.models.scripted import ScriptedModel as ScriptedModel
from toolrail.models.scripted import ScriptedTurn as ScriptedTurn
from toolrail.models.testing import TestModel as TestModel
from toolrail.models.testing import block_provider_calls as block_provider_calls

__all__ = [
    "AnthropicModel",
    "AssistantMessage",
    "GeminiModel",
    "Handoff",
    "Message",
    "Model",
    "ModelRequest",
    "OpenAIChatModel",
    "OpenAIResponsesModel",
    "ProviderCallsBlocked",
    "ScriptedModel",
    "ScriptedTurn",
    "StreamingModel",
    "TestModel",
    "ToolResults",
    "UserMessage",
    "block_provider_calls",
]
