"""A small hand-made catalogue of REST-like tools, with parameter schemas, for router tests."""

from __future__ import annotations

from toolrail import ToolRegistry
from toolrail.core.tool import AnyTool
from toolrail.routing.catalogue import definition_tool


def obj(**properties: dict[str, object]) -> dict[str, object]:
    return {"type": "object", "properties": properties}


def text(description: str, **extra: object) -> dict[str, object]:
    return {"type": "string", "description": description, **extra}


def tools() -> list[AnyTool]:
    return [
        definition_tool(
            "get_current_weather",
            "Current weather conditions for a city: temperature, wind, rain.",
            obj(city=text("city name"), units=text("unit system", enum=["metric", "imperial"])),
        ),
        definition_tool(
            "createInvoice",
            "Create an invoice for a customer with line items and a due date.",
            obj(customer_id=text("the customer"), due_date=text("ISO date")),
        ),
        definition_tool(
            "send_email",
            "Send an email message to one or more recipients.",
            obj(to=text("recipient addresses"), subject=text("subject line"), body=text("text")),
        ),
        definition_tool(
            "list_calendar_events",
            "List the events in a calendar between two dates.",
            obj(calendar_id=text("calendar"), start=text("from"), end=text("until")),
        ),
        definition_tool(
            "translate_text",
            "Translate text from one language into another.",
            obj(text=text("what to translate"), target_language=text("e.g. fr, de")),
        ),
        definition_tool(
            "mcp__git__git_log",
            "Show the commit history of a repository.",
            obj(repo_path=text("path to the repository"), max_count={"type": "integer"}),
        ),
        definition_tool(
            "search_flights",
            "Search flights between two airports on a date.",
            obj(origin=text("airport code"), destination=text("airport code"), date=text("day")),
        ),
        definition_tool(
            "convert_currency",
            "Convert an amount of money from one currency to another at today's rate.",
            obj(amount={"type": "number"}, source=text("ISO code"), target=text("ISO code")),
        ),
        definition_tool(
            "resize_image",
            "Resize a picture to the given width and height in pixels.",
            obj(path=text("image file"), width={"type": "integer"}, height={"type": "integer"}),
        ),
        definition_tool(
            "order_status",
            "Look up the shipping status of an order.",
            obj(order_id=text("order number"), carrier=text("carrier", enum=["ups", "dhl"])),
        ),
    ]


def registry() -> ToolRegistry:
    return ToolRegistry(tools())
