"""Human in the loop on the page, in a real browser: frontend tools answered from the page, and
approval interrupts decided with Approve, Edit (approve with edited arguments), Reject (with an
optional reason) or Cancel.

What the page sends next is read from the requests the browser made: the tool message for a
frontend tool, the resume entry (with the interrupt id exactly as received) for an approval.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents.tool import DEFAULT_APPROVAL_REJECTION_MESSAGE

from browser_page import PageSession
from page_app import APPROVAL_IDS

pytestmark = pytest.mark.slow


def last_finished(session: PageSession) -> dict[str, Any]:
    """The last run's RUN_FINISHED event, read from the event log panel."""
    entry = session.page.locator('#event-log li[data-type="RUN_FINISHED"] pre')
    return dict(json.loads(entry.text_content() or "{}"))


def test_task_steps_are_reviewed_and_answered_from_the_page(session: PageSession) -> None:
    session.open("human_in_the_loop")
    session.say("Plan the steps to bake a cake")
    session.wait_for_runs(1)
    [call_id] = last_finished(session)["outcome"]["pendingToolCallIds"]
    steps = session.page.get_by_role("list", name="Proposed steps").get_by_role("checkbox")
    steps.nth(2).wait_for()
    assert steps.count() == 7  # the demo's plan for a cake
    labels = [text.strip() for text in steps.locator("xpath=..").all_text_contents()]
    assert session.page.get_by_role("button", name="Send").is_disabled()
    session.shot("steps-proposed")

    steps.nth(1).uncheck()
    session.page.get_by_role("button", name="Confirm").click()
    session.wait_for_runs(2)
    answer = session.runs[1]["messages"][-1]
    assert answer["role"] == "tool" and answer["toolCallId"] == call_id
    kept = [label for index, label in enumerate(labels) if index != 1]
    assert answer["content"] == f"The user kept these steps: {'; '.join(kept)}."
    reply = session.transcript().locator(".message.assistant .text").last.inner_text()
    assert reply.startswith("Great, here is the plan with the 6 steps you kept:")
    assert all(label in reply for label in kept) and labels[1] not in reply
    assert session.page.get_by_role("button", name="Confirm").count() == 0
    assert session.page.get_by_role("button", name="Send").is_enabled()
    session.shot("steps-confirmed")


def test_rejected_steps_are_answered_too(session: PageSession) -> None:
    session.open("human_in_the_loop")
    session.say("Plan the steps to paint a wall")
    session.wait_for_runs(1)
    session.page.get_by_role("button", name="Reject").click()
    session.wait_for_runs(2)
    assert session.runs[1]["messages"][-1]["content"] == "The user rejected the plan."
    session.shot("steps-rejected")


def test_haiku_is_drawn_from_the_arguments_and_answered(session: PageSession) -> None:
    session.open("tool_based_generative_ui")
    session.say("Write a haiku about autumn leaves")
    session.wait_for_runs(2)  # the page draws the card and answers at once
    haiku = session.page.get_by_role("group", name="Haiku", exact=True)
    first_call = json.loads(
        session.page.get_by_label("Arguments of generate_haiku").text_content() or ""
    )
    for line in [*first_call["japanese"], *first_call["english"]]:
        assert line in (haiku.text_content() or "")
    answer = session.runs[1]["messages"][-1]
    assert (answer["role"], answer["content"]) == ("tool", "Haiku shown.")
    reply = session.transcript().locator(".message.assistant .text").last.inner_text()
    assert reply.strip() == f"Your haiku is ready: {' / '.join(first_call['english'])}."
    session.shot("haiku")


def _paused_refund(session: PageSession, order: str = "A-17") -> dict[str, Any]:
    """Ask for a refund of 30 dollars on ``order``."""
    session.open("human_in_the_loop_approval")
    session.say(f"Please refund 30 dollars on order {order}")
    session.wait_for_runs(1)
    [interrupt] = last_finished(session)["outcome"]["interrupts"]
    card = session.page.get_by_role("group", name=f"Interrupt {interrupt['reason']}")
    assert "issue_refund" in (card.text_content() or "")
    assert f'"order_id": "{order}"' in (card.text_content() or "")
    assert session.page.get_by_role("button", name="Send").is_disabled()
    call = session.page.get_by_role("group", name="Tool call issue_refund")
    assert call.locator(".tool-status").text_content() == "waiting for approval"
    session.shot("approval-asked")
    snapshot = session.page.locator('#event-log li[data-type="MESSAGES_SNAPSHOT"] pre')
    ids = [m["id"] for m in json.loads(snapshot.text_content() or "{}")["messages"]]
    return {**interrupt, "snapshot_ids": ids}


@pytest.mark.parametrize(
    ("button", "entry"),
    [
        ("Approve", {"status": "resolved", "payload": {"approved": True}}),
        ("Reject", {"status": "resolved", "payload": {"approved": False}}),
        ("Cancel", {"status": "cancelled"}),
    ],
)
def test_refund_decided_from_the_page(
    session: PageSession, button: str, entry: dict[str, Any]
) -> None:
    interrupt = _paused_refund(session)
    session.page.get_by_role("button", name=button, exact=True).click()
    card = session.wait_for_runs(2)
    resume = session.runs[1]["resume"]
    assert resume == [{"interruptId": interrupt["id"], **entry}]
    assert [m["id"] for m in session.runs[1]["messages"]] == interrupt["snapshot_ids"]
    assert "Resumed with" in (card.text_content() or "")
    assert "success" in (card.locator(".run-outcome").text_content() or "")
    result = session.page.get_by_role("group", name="Tool call issue_refund").locator(
        ".tool-result"
    )
    if button == "Approve":
        assert result.text_content() == "Refunded 30.00 USD on order A-17."
    else:
        assert result.text_content() != "Refunded 30.00 USD on order A-17."
        if button == "Reject":
            assert result.text_content() == DEFAULT_APPROVAL_REJECTION_MESSAGE
    assert session.page.get_by_role("button", name="Approve").count() == 0
    assert session.page.get_by_role("button", name="Send").is_enabled()
    session.shot(f"refund-{button.lower()}")


def _edit_refund(session: PageSession, order: str, amount: str, proposed: str) -> None:
    """Open the refund's edit form (proposing 30 on ``proposed``), change the order and the
    amount, and approve."""
    card = session.page.locator(".interrupt")
    card.get_by_role("button", name="Edit", exact=True).click()
    form = session.page.get_by_role("form", name="Edit the arguments of issue_refund")
    assert form.get_by_label("Order Id").input_value() == proposed
    assert form.get_by_label("Amount").input_value() == "30"
    form.get_by_label("Order Id").fill(order)
    form.get_by_label("Amount").fill(amount)
    session.shot("refund-edited")
    form.get_by_role("button", name="Approve with edits").click()


def test_refund_edited_before_approval(session: PageSession) -> None:
    interrupt = _paused_refund(session, "A-41")
    schema = interrupt["responseSchema"]
    assert schema["required"] == ["approved"]
    assert set(schema["properties"]["editedArgs"]["properties"]) == {"order_id", "amount"}

    _edit_refund(session, "A-18", "45.5", proposed="A-41")
    card = session.wait_for_runs(2)

    edits = {"order_id": "A-18", "amount": 45.5}
    assert session.runs[1]["resume"] == [
        {
            "interruptId": interrupt["id"],
            "status": "resolved",
            "payload": {"approved": True, "editedArgs": edits},
        }
    ]
    assert "success" in (card.locator(".run-outcome").text_content() or "")
    call = session.page.get_by_role("group", name="Tool call issue_refund")
    assert call.locator(".tool-result").text_content() == "Refunded 45.50 USD on order A-18."
    # The snapshot shows the arguments that ran, under the call's own id.
    shown = json.loads(call.get_by_label("Arguments of issue_refund").text_content() or "")
    assert shown == edits
    assert call.get_attribute("data-call-id") == interrupt["toolCallId"]
    reply = session.transcript().locator(".message.assistant .text").last.text_content() or ""
    assert "Refunded 45.50 USD on order A-18." in reply
    assert session.page.get_by_role("button", name="Approve").count() == 0
    session.shot("refund-edited-done")


def test_a_bad_edit_is_refused_and_the_refund_can_be_decided_again(
    session: PageSession,
) -> None:
    interrupt = _paused_refund(session, "A-42")

    # A number field takes only numbers; made a text field, it sends what is typed as text.
    session.page.locator(".interrupt").get_by_role("button", name="Edit", exact=True).click()
    session.page.get_by_label("Amount").evaluate("input => { input.type = 'text'; }")
    session.page.get_by_label("Amount").fill("thirty")
    session.page.get_by_label("Order Id").fill("A-18")
    session.page.get_by_role("button", name="Approve with edits").click()
    refused = session.wait_for_runs(2)

    assert session.runs[1]["resume"][0]["payload"] == {
        "approved": True,
        "editedArgs": {"order_id": "A-18", "amount": "thirty"},
    }
    assert "INVALID_APPROVAL" in (refused.locator(".run-outcome").text_content() or "")
    errors = session.page.locator("#errors").text_content() or ""
    assert "editedArgs['amount']" in errors and "INVALID_APPROVAL" in errors
    call = session.page.get_by_role("group", name="Tool call issue_refund")
    assert call.locator(".tool-result").count() == 0
    assert call.locator(".tool-status").text_content() == "waiting for approval"
    session.shot("refund-edit-refused")

    _edit_refund(session, "A-42", "25", proposed="A-42")  # the same interrupt, answered again
    session.wait_for_runs(3)
    assert session.runs[2]["resume"][0]["interruptId"] == interrupt["id"]
    assert call.locator(".tool-result").text_content() == "Refunded 25.00 USD on order A-42."


def test_refund_rejected_with_a_reason(session: PageSession) -> None:
    _paused_refund(session)
    reason = "Refunds over 20 dollars need a receipt."
    session.page.locator(".interrupt").get_by_label("Reason").fill(reason)
    session.page.get_by_role("button", name="Reject", exact=True).click()
    session.wait_for_runs(2)

    assert session.runs[1]["resume"][0]["payload"] == {"approved": False, "reason": reason}
    call = session.page.get_by_role("group", name="Tool call issue_refund")
    assert call.locator(".tool-result").text_content() == reason
    session.shot("refund-rejected-with-reason")


def test_two_interrupts_are_answered_in_one_resume(session: PageSession) -> None:
    session.open("two_approvals")
    session.say("Refund both orders")
    session.wait_for_runs(1)
    cards = session.page.locator(".interrupt")
    # The cards show once the conversation stops running, a render after the run's own card.
    cards.nth(1).wait_for()
    assert cards.count() == 2
    cards.nth(0).get_by_role("button", name="Approve").click()
    session.page.get_by_text("Waiting for the other interrupts").wait_for(state="visible")
    assert len(session.runs) == 1, "nothing is sent before every interrupt is decided"
    session.shot("one-decided")
    cards.nth(1).get_by_role("button", name="Reject").click()
    session.wait_for_runs(2)
    assert session.runs[1]["resume"] == [
        {
            "interruptId": APPROVAL_IDS["call_a"],
            "status": "resolved",
            "payload": {"approved": True},
        },
        {
            "interruptId": APPROVAL_IDS["call_b"],
            "status": "resolved",
            "payload": {"approved": False},
        },
    ]
    results = session.page.locator(".tool-result").all_text_contents()
    assert len(results) == 2 and "missing" not in "".join(results)
    session.shot("both-decided")
