"""Reading an answer to an approval interrupt, and the answer schema an interrupt offers."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest
from agents import function_tool
from pydantic import BaseModel

from ag_ui_openai_agents.approvals.decisions import (
    Decision,
    InvalidDecision,
    approval_response_schema,
    check_edits,
    read_decision,
)


class Address(BaseModel):
    street: str
    city: str


@function_tool(needs_approval=True)
def ship(order_id: str, address: Address) -> str:
    """Ship an order to an address."""
    return f"Shipping {order_id} to {address.city}"


SCHEMA = ship.params_json_schema


@pytest.mark.parametrize(
    ("payload", "decision"),
    [
        ({"approved": True}, Decision(approved=True)),
        ({"approved": True, "editedArgs": {"a": 1}}, Decision(True, edited_args={"a": 1})),
        ({"approved": False, "reason": "No."}, Decision(False, reason="No.")),
        ({"approved": False, "reason": ""}, Decision(False)),
        ({"approved": False, "editedArgs": {"a": 1}}, Decision(False)),
        ({"approved": True, "reason": "fine"}, Decision(True)),
        # Saying nothing about approval rejects, as it always did.
        (None, Decision(False)),
        ({}, Decision(False)),
        ({"ok": True}, Decision(False)),
        (True, Decision(False)),
        ("approved", Decision(False)),
    ],
)
def test_answers_are_read_into_decisions(payload: Any, decision: Decision) -> None:
    assert read_decision(payload) == decision


@pytest.mark.parametrize(
    "payload",
    [
        {"approved": "true"},
        {"approved": 1},
        {"approved": None},
        {"editedArgs": {"a": 1}},
        {"approved": True, "editedArgs": "a=1"},
        {"approved": True, "editedArgs": None},
        {"approved": False, "editedArgs": []},
        {"approved": False, "reason": ["no"]},
    ],
)
def test_malformed_answers_are_invalid(payload: Any) -> None:
    assert isinstance(read_decision(payload), InvalidDecision)


def test_edits_are_used_in_full_never_merged() -> None:
    proposed = '{"order_id": "A-17", "amount": 30}'
    decision = Decision(True, edited_args={"order_id": "A-18"})
    assert decision.arguments(proposed) == '{"order_id":"A-18"}'
    assert Decision(True).arguments(proposed) == proposed
    same = Decision(True, edited_args={"amount": 30, "order_id": "A-17"})
    assert same.arguments(proposed) == proposed


def test_edits_are_checked_against_the_tool_schema_with_its_definitions() -> None:
    good = {"order_id": "A-1", "address": {"street": "1 Main St", "city": "Lyon"}}
    assert check_edits(good, SCHEMA) is None
    missing = {"order_id": "A-1", "address": {"street": "1 Main St"}}
    problem = check_edits(missing, SCHEMA)
    assert problem is not None and "['address']" in problem and "'required'" in problem


def test_a_broken_tool_schema_refuses_edits_rather_than_running_them() -> None:
    assert check_edits({"a": 1}, {"type": "no such type"}) is not None


def test_the_answer_schema_types_edits_and_resolves_the_tool_definitions() -> None:
    schema = approval_response_schema(SCHEMA)

    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    edits = {"order_id": "A-1", "address": {"street": "1 Main St", "city": "Lyon"}}
    assert validator.is_valid({"approved": True, "editedArgs": edits})
    assert not validator.is_valid({"approved": True, "editedArgs": {"order_id": "A-1"}})
    assert not validator.is_valid({"approved": True, "editedArgs": {**edits, "address": {}}})
    assert not validator.is_valid({"reason": "no"})
    assert "$defs" in schema and "$defs" not in schema["properties"]["editedArgs"]
    assert "$defs" in SCHEMA  # the tool's own schema is left as it was


def test_without_a_tool_schema_no_edits_are_offered() -> None:
    schema = approval_response_schema(None)
    assert list(schema["properties"]) == ["approved", "reason"]
    assert schema["required"] == ["approved"]
