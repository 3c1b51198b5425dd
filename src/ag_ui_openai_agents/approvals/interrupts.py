"""AG-UI interrupts for paused backend tool calls, one per call, signed or not."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any

from ag_ui.core import Interrupt
from agents import ToolApprovalItem

from ag_ui_openai_agents.approvals.decisions import approval_response_schema
from ag_ui_openai_agents.approvals.signing import (
    ApprovalSignature,
    ApprovalSigner,
    ApprovalSubject,
    signed_interrupt_id,
)
from ag_ui_openai_agents.errors import UNRESUMABLE_APPROVAL_CODE
from ag_ui_openai_agents.protocol import item_field as _field

TOOL_APPROVAL_REASON = "tool_approval"
"""``Interrupt.reason`` of a paused backend tool call."""

APPROVAL_RESPONSE_SCHEMA: dict[str, Any] = approval_response_schema(None)
"""JSON schema of the answer an approval interrupt expects when the tool's argument schema is
unknown: ``{"approved": true | false, "reason"?: string}``. Interrupts of known tools also offer
``editedArgs``, typed by the tool's arguments (:func:`approval_response_schema`)."""


class UnresumableApprovalError(Exception):
    """An approval that cannot be resumed from the conversation history.

    Its message is written for the client: ``RUN_ERROR`` carries it with :attr:`code`.
    """

    code = UNRESUMABLE_APPROVAL_CODE


def approval_interrupt(
    call_id: str,
    tool_name: str,
    arguments: str,
    *,
    signature: ApprovalSignature | None = None,
    message: str | None = None,
    params_schema: Mapping[str, Any] | None = None,
) -> Interrupt:
    """Build the AG-UI interrupt asking to approve one paused tool call.

    With a ``signature``, the interrupt's ``id`` is ``<call id>.<token>`` and ``expires_at`` is
    set; ``tool_call_id`` is always the plain call id. With the tool's ``params_schema``, the
    ``response_schema`` offers ``editedArgs`` typed by it.
    """
    return Interrupt(
        id=call_id if signature is None else signed_interrupt_id(call_id, signature.token),
        reason=TOOL_APPROVAL_REASON,
        message=message,
        tool_call_id=call_id,
        response_schema=approval_response_schema(params_schema),
        expires_at=None if signature is None else signature.expires_at,
        metadata={"tool_name": tool_name, "tool_input": parse_arguments(arguments)},
    )


def interrupts_from_result(
    interruptions: Sequence[ToolApprovalItem],
    known_call_ids: Collection[str],
    *,
    signer: ApprovalSigner | None = None,
    thread_id: str | None = None,
    params_schemas: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[Interrupt]:
    """Map a paused run's approval items to interrupts, one per paused call, in order.

    ``known_call_ids`` are the calls the conversation holds (the run's own calls and the
    history). Raises :class:`UnresumableApprovalError` for an approval that a later request could
    not resume: one of a built-in tool with its own executor, or one raised inside an agent used
    as a tool (its call id is not in the conversation). With a ``signer``, each interrupt is
    signed for ``thread_id``. ``params_schemas`` maps tool names to their argument schemas,
    which type the ``editedArgs`` each interrupt offers.
    """
    interrupts: list[Interrupt] = []
    seen: set[str] = set()
    for item in interruptions:
        tool_name = item.tool_name or item.name or "<unnamed tool>"
        raw_type = _field(item.raw_item, "type")
        if raw_type != "function_call":
            raise UnresumableApprovalError(
                f"Tool {tool_name!r} needs approval but cannot be resumed: it is a built-in tool "
                f"({raw_type}) with its own executor, and only function tools are resumed from "
                "the conversation."
            )
        call_id = item.call_id
        if not call_id or call_id not in known_call_ids:
            raise UnresumableApprovalError(
                f"Tool {tool_name!r} needs approval but cannot be resumed: its call "
                f"({call_id}) was made inside an agent used as a tool, so the conversation does "
                "not hold it. Gate the agent tool itself or reach that agent by handoff."
            )
        if call_id not in seen:
            seen.add(call_id)
            arguments = item.arguments or ""
            signature = None
            if signer is not None:
                called = _field(item.raw_item, "name") or tool_name
                if thread_id is None:
                    raise ValueError("signing approval interrupts needs the thread id")
                subject = ApprovalSubject(thread_id, call_id, called, arguments)
                signature = signer.sign(subject)
            schema = (params_schemas or {}).get(tool_name)
            interrupts.append(
                approval_interrupt(
                    call_id, tool_name, arguments, signature=signature, params_schema=schema
                )
            )
    return interrupts


def parse_arguments(arguments: str) -> Any:
    """Parse tool arguments as JSON, keeping the raw string when they are not JSON."""
    try:
        return json.loads(arguments)
    except (TypeError, ValueError):
        return arguments
