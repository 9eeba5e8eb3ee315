"""Gates the executor consults before a tool runs: permissions, allow/ask/deny rules,
approvals (human in the loop) and budgets. See `Gates` for their order."""

from toolrail.policy.approvals import ApprovalRequest as ApprovalRequest
from toolrail.policy.approvals import Approve as Approve
from toolrail.policy.approvals import Deny as Deny
from toolrail.policy.budgets import Budget as Budget
from toolrail.policy.gates import Gates as Gates
from toolrail.policy.rules import Rules as Rules

__all__ = ["ApprovalRequest", "Approve", "Budget", "Deny", "Gates", "Rules"]
