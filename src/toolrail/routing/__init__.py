"""Tool routing: show a model the few tools that matter for a request, out of hundreds."""

from toolrail.routing.index import LexicalIndex
from toolrail.routing.router import DEPRECATED_TAG, Match, Router, RoutingSettings

__all__ = ["DEPRECATED_TAG", "LexicalIndex", "Match", "Router", "RoutingSettings"]
