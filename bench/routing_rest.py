"""Routing on a second kind of catalogue: REST-like endpoints with parameter schemas, and
requests that repeat ids and enum values (MetaTool, in `routing_quality.py`, has neither).

Hand-made by an outside reviewer (stop 27) as a guard, not a training set: 30 resources x
6 operations (get by id, list with a status enum, create, update, delete, search) and 15
special endpoints, optionally copied under up to 7 service prefixes (195 / 585 / 1,365
tools); 360 templated requests (the same templates for every resource, ids and statuses
drawn with a fixed seed) and 25 written ones; 10 requests no tool serves. Reports top-1 and
top-5 for the default router and for `RoutingSettings(dense=False)` (lexical alone).
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # `python bench/routing_...`

from toolrail import ToolRegistry
from toolrail.core.tool import AnyTool
from toolrail.routing import Router, RoutingSettings
from toolrail.routing.catalogue import definition_tool

RES: dict[str, tuple[str, str, list[str], str, str]] = {
    # resource: (plural, id prefix, statuses, a field, an example of it)
    "user": ("users", "usr", ["active", "suspended", "invited"], "email", "ana@example.com"),
    "invoice": ("invoices", "in", ["draft", "open", "paid", "void"], "customer_id", "cus_9"),
    "payment_intent": (
        "payment_intents",
        "pi",
        ["requires_capture", "succeeded", "canceled"],
        "currency",
        "EUR",
    ),
    "charge": ("charges", "ch", ["succeeded", "failed", "refunded"], "currency", "EUR"),
    "refund": ("refunds", "re", ["pending", "succeeded", "failed"], "charge_id", "ch_123"),
    "customer": ("customers", "cus", ["active", "churned"], "email", "bob@example.com"),
    "subscription": (
        "subscriptions",
        "sub",
        ["trialing", "active", "past_due", "canceled"],
        "plan",
        "pro",
    ),
    "product": ("products", "prod", ["active", "archived"], "sku", "SKU-1"),
    "price": ("prices", "price", ["active", "archived"], "currency", "USD"),
    "order": (
        "orders",
        "ord",
        ["pending", "shipped", "delivered", "returned"],
        "customer_id",
        "cus_9",
    ),
    "shipment": (
        "shipments",
        "shp",
        ["label_created", "in_transit", "delivered"],
        "carrier",
        "UPS",
    ),
    "webhook_endpoint": (
        "webhook_endpoints",
        "we",
        ["enabled", "disabled"],
        "url",
        "https://x.io/hook",
    ),
    "file": ("files", "file", ["uploaded", "processing"], "purpose", "dispute_evidence"),
    "event": ("events", "evt", ["delivered", "pending"], "type", "charge.succeeded"),
    "dispute": ("disputes", "dp", ["needs_response", "won", "lost"], "reason", "fraudulent"),
    "payout": ("payouts", "po", ["pending", "paid", "failed"], "currency", "EUR"),
    "coupon": ("coupons", "co", ["valid", "expired"], "percent_off", "25"),
    "tax_rate": ("tax_rates", "txr", ["active", "inactive"], "jurisdiction", "DE"),
    "employee": ("employees", "emp", ["active", "terminated"], "department", "engineering"),
    "ticket": ("tickets", "tkt", ["open", "pending", "solved"], "priority", "urgent"),
    "repository": ("repositories", "repo", ["public", "private"], "owner", "octocat"),
    "pull_request": ("pull_requests", "pr", ["open", "merged", "closed"], "branch", "main"),
    "issue": ("issues", "iss", ["open", "closed"], "label", "bug"),
    "calendar_event": (
        "calendar_events",
        "cal",
        ["confirmed", "tentative", "cancelled"],
        "attendee",
        "ana@example.com",
    ),
    "message": ("messages", "msg", ["sent", "read"], "channel", "general"),
    "contact": ("contacts", "ct", ["lead", "customer"], "phone", "+4915112345"),
    "deal": ("deals", "deal", ["open", "won", "lost"], "stage", "negotiation"),
    "warehouse": ("warehouses", "wh", ["open", "closed"], "city", "Berlin"),
    "inventory_item": ("inventory_items", "inv", ["in_stock", "out_of_stock"], "sku", "SKU-1"),
    "api_key": ("api_keys", "key", ["active", "revoked"], "scope", "read_only"),
}
OPS: dict[str, str] = {
    "get_{r}_by_id": "Retrieve a {r_h} by its ID.",
    "list_{p}": "List {p_h}, optionally filtered by status, paginated.",
    "create_{r}": "Create a new {r_h}.",
    "update_{r}": "Update an existing {r_h}'s fields.",
    "delete_{r}": "Delete a {r_h} permanently.",
    "search_{p}": "Search {p_h} by a free-text query.",
}
SPECIAL: list[tuple[str, str, str, dict[str, object]]] = [
    (
        "refund_charge",
        "Refund a charge, fully or partially.",
        "charge",
        {
            "amount": {"type": "integer", "description": "Amount in cents", "example": "2000"},
            "currency": {"type": "string", "enum": ["EUR", "USD", "GBP"]},
        },
    ),
    (
        "capture_payment_intent",
        "Capture the funds of an authorized payment intent.",
        "payment_intent",
        {},
    ),
    (
        "cancel_subscription",
        "Cancel a customer's subscription at period end or immediately.",
        "subscription",
        {"at_period_end": {"type": "boolean"}},
    ),
    ("finalize_invoice", "Finalize a draft invoice so it can be paid.", "invoice", {}),
    ("send_invoice", "Email an invoice to the customer.", "invoice", {}),
    ("void_invoice", "Mark an invoice as void.", "invoice", {}),
    (
        "merge_pull_request",
        "Merge a pull request into its base branch.",
        "pull_request",
        {"merge_method": {"type": "string", "enum": ["merge", "squash", "rebase"]}},
    ),
    ("close_issue", "Close an issue.", "issue", {}),
    (
        "assign_ticket",
        "Assign a support ticket to an agent.",
        "ticket",
        {"assignee": {"type": "string", "example": "maria"}},
    ),
    ("track_shipment", "Get tracking events of a shipment from the carrier.", "shipment", {}),
    ("revoke_api_key", "Revoke an API key so it can no longer authenticate.", "api_key", {}),
    (
        "terminate_employee",
        "Offboard an employee and end their contract.",
        "employee",
        {"last_day": {"type": "string", "format": "date"}},
    ),
    (
        "submit_dispute_evidence",
        "Submit evidence to contest a dispute.",
        "dispute",
        {"file_id": {"type": "string", "example": "file_77"}},
    ),
    (
        "apply_coupon",
        "Apply a coupon to a customer or subscription.",
        "coupon",
        {"customer_id": {"type": "string", "example": "cus_9"}},
    ),
    (
        "adjust_inventory",
        "Adjust the stock quantity of an inventory item.",
        "inventory_item",
        {"delta": {"type": "integer"}},
    ),
]
SERVICES = ["", "v2_", "sandbox_", "eu_", "legacy_", "partner_", "internal_"]


def _words(name: str) -> str:
    return name.replace("_", " ")


def _schema(resource: str, op: str) -> dict[str, object]:
    _, prefix, statuses, field, example = RES[resource]
    props: dict[str, object] = {}
    if op.startswith(("get_", "update_", "delete_")):
        props[f"{resource}_id"] = {
            "type": "string",
            "description": f"The {_words(resource)} ID",
            "example": f"{prefix}_123",
        }
    if op.startswith("list_"):
        props["status"] = {"type": "string", "enum": statuses}
        props["limit"] = {"type": "integer", "default": 20}
        props["starting_after"] = {"type": "string", "description": "Cursor for pagination"}
    if op.startswith("search_"):
        props["query"] = {"type": "string", "description": "Search text"}
    if op.startswith(("create_", "update_")):
        props[field] = {"type": "string", "example": example}
    return {"type": "object", "properties": props}


def tools(services: int = 1) -> list[AnyTool]:
    made: list[AnyTool] = []
    for service in SERVICES[:services]:
        said = f" ({_words(service).strip()} API)" if service else ""
        for resource, (plural, *_) in RES.items():
            for template, description in OPS.items():
                op = template.format(r=resource, p=plural)
                text = description.format(r_h=_words(resource), p_h=_words(plural)) + said
                made.append(definition_tool(service + op, text, _schema(resource, op)))
        for name, description, resource, extra in SPECIAL:
            prefix = RES[resource][1]
            props = {f"{resource}_id": {"type": "string", "example": f"{prefix}_123"}, **extra}
            schema = {"type": "object", "properties": props}
            made.append(definition_tool(service + name, description + said, schema))
    return made


def requests() -> list[tuple[str, str]]:
    """(request, the tool it asks for)."""
    rng = random.Random(7)
    q: list[tuple[str, str]] = []
    for r, (p, pre, statuses, extra, ex) in RES.items():
        rid = f"{pre}_{rng.randint(100, 9999)}"
        st = rng.choice(statuses)
        hr, hp, he = _words(r), _words(p), _words(extra)
        q += [
            (f"get {hr} {rid}", f"get_{r}_by_id"),
            (f"show me {hr} {rid}", f"get_{r}_by_id"),
            (f"fetch the details of {hr} {rid}", f"get_{r}_by_id"),
            (f"list all {hp} with status {st}", f"list_{p}"),
            (f"which {hp} are {st}?", f"list_{p}"),
            (f"create a {hr} with {he} {ex}", f"create_{r}"),
            (f"add a new {hr}", f"create_{r}"),
            (f"change the {he} of {hr} {rid} to {ex}", f"update_{r}"),
            (f"delete {hr} {rid}", f"delete_{r}"),
            (f"remove {hr} {rid} permanently", f"delete_{r}"),
            (f"search {hp} for 'acme'", f"search_{p}"),
            (f"find {hp} matching acme corp", f"search_{p}"),
        ]
    q += [
        ("refund charge ch_123 for 20 EUR", "refund_charge"),
        ("give the customer their money back for charge ch_881", "refund_charge"),
        ("refund 2000 cents of ch_55 in GBP", "refund_charge"),
        ("capture payment intent pi_3M", "capture_payment_intent"),
        ("cancel subscription sub_42 at period end", "cancel_subscription"),
        ("stop sub_42 immediately", "cancel_subscription"),
        ("finalize draft invoice in_77", "finalize_invoice"),
        ("email invoice in_77 to the customer", "send_invoice"),
        ("void invoice in_77", "void_invoice"),
        ("squash merge pr_12", "merge_pull_request"),
        ("merge pull request pr_12 with rebase", "merge_pull_request"),
        ("close issue iss_9 as fixed", "close_issue"),
        ("assign ticket tkt_5 to maria", "assign_ticket"),
        ("where is my package shp_19 with UPS", "track_shipment"),
        ("track shipment shp_19", "track_shipment"),
        ("revoke api key key_abc", "revoke_api_key"),
        ("offboard employee emp_4 last day 2024-05-31", "terminate_employee"),
        ("submit evidence file_77 for dispute dp_3", "submit_dispute_evidence"),
        ("apply coupon co_25 to cus_9", "apply_coupon"),
        ("add 5 units of stock to SKU-1", "adjust_inventory"),
        ("list payouts in EUR that failed", "list_payouts"),
        ("list invoices that are past due for cus_9", "list_invoices"),
        ("list open pull requests on main", "list_pull_requests"),
        ("which tickets are urgent and open", "list_tickets"),
        ("list events of type charge.succeeded", "list_events"),
    ]
    return q


IRRELEVANT = [
    "what's the weather in Paris tomorrow?",
    "tell me a joke about cats",
    "who won the 1998 world cup",
    "translate good morning into japanese",
    "recipe for banana bread",
    "how tall is mount everest",
    "play some jazz music",
    "what is the capital of australia",
    "book a flight to Rome",
    "set an alarm for 7am",
]


def measure(router: Router) -> tuple[float, float, int]:
    """Top-1 and top-5 over `requests()`, and how many irrelevant requests got an answer."""
    asked = requests()
    top1 = top5 = 0
    for request, wanted in asked:
        found = [match.tool.name for match in router.search(request, k=5)]
        top1 += bool(found) and found[0] == wanted
        top5 += wanted in found
    answered = sum(bool(router.search(request, k=5)) for request in IRRELEVANT)
    return top1 / len(asked), top5 / len(asked), answered


def main() -> None:
    print("\nrouting on REST-like endpoints (hand-made; top-1 / top-5; irrelevant answered)")
    for services in (1, 3, 7):
        registry = ToolRegistry(tools(services))
        print(f"  {len(registry):5} tools")
        for label, settings in (
            ("default", RoutingSettings()),
            ("lexical alone (dense=False)", RoutingSettings(dense=False)),
        ):
            top1, top5, answered = measure(Router(registry, settings=settings))
            print(f"    {label:30} {top1:.3f} / {top5:.3f}; {answered}/{len(IRRELEVANT)}")


if __name__ == "__main__":
    main()
