"""Internal: a person's answer to an approval interrupt, read once, and the edits it carries.

A resume entry's payload is read into a :class:`Decision` (approve or reject, with edited
arguments or a reason) or an :class:`InvalidDecision` naming what was wrong. The shapes, as the
interrupt's ``response_schema`` (:func:`approval_response_schema`) offers them:

- ``{"approved": true}`` runs the call as the model proposed it;
- ``{"approved": true, "editedArgs": {...}}`` runs it with these arguments instead, in full;
- ``{"approved": false, "reason": "..."}`` rejects it, and the reason is what the model is told.

Deny by default: a payload that is not an object, or an object saying nothing about approval,
rejects the call as before. A payload that tries to decide and is malformed (``approved`` not a
boolean, ``editedArgs`` not an object, ``reason`` not a string, edits that the tool's own
argument schema refuses) is invalid: nothing runs, the original arguments are never used in its
place, and the request ends with RUN_ERROR ``INVALID_APPROVAL`` while the call stays open.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import AssistantMessage, Message
from jsonschema import exceptions as jsonschema_exceptions
from jsonschema import validators

from ag_ui_openai_agents.errors import INVALID_APPROVAL_CODE as INVALID_APPROVAL_CODE

logger = logging.getLogger(__name__)

APPROVED_KEY = "approved"
EDITED_ARGS_KEY = "editedArgs"
REASON_KEY = "reason"

_SHOWN_CHARS = 60
_EDITS_DESCRIPTION = (
    "Run the tool with these arguments instead of the proposed ones (they replace them in full)."
)
_REASON_DESCRIPTION = "Why the call was rejected; the agent is told."


@dataclass(frozen=True)
class Decision:
    """What a person decided about one paused call."""

    approved: bool
    """Whether the call may run."""
    edited_args: dict[str, Any] | None = None
    """The arguments to run the call with instead of the model's (approvals only)."""
    reason: str | None = None
    """Why the call was rejected, for the model (rejections only; None: the default text)."""

    def arguments(self, proposed: str) -> str:
        """The arguments to run: the model's ``proposed`` ones, or the edits in their place.

        Edits equal to the proposed arguments keep the model's text as it was.
        """
        if self.edited_args is None:
            return proposed
        try:
            if json.loads(proposed) == self.edited_args:
                return proposed
        except (TypeError, ValueError):
            pass
        return json.dumps(self.edited_args, ensure_ascii=False, separators=(",", ":"))


@dataclass(frozen=True)
class InvalidDecision:
    """An answer that tried to decide but could not be read: nothing may run on it."""

    problem: str
    """A client-safe phrase saying what was wrong (no part of the input beyond short names)."""


def read_decision(payload: object) -> Decision | InvalidDecision:
    """Read a resume entry's payload (see the module docstring for the shapes)."""
    if not isinstance(payload, dict) or not ({APPROVED_KEY, EDITED_ARGS_KEY} & payload.keys()):
        return Decision(approved=False)
    approved = payload.get(APPROVED_KEY)
    if not isinstance(approved, bool):
        return InvalidDecision(f"{APPROVED_KEY!r} must be true or false")
    edited = payload.get(EDITED_ARGS_KEY)
    if EDITED_ARGS_KEY in payload and not isinstance(edited, dict):
        return InvalidDecision(f"{EDITED_ARGS_KEY!r} must be an object of the tool's arguments")
    reason = payload.get(REASON_KEY)
    if reason is not None and not isinstance(reason, str):
        return InvalidDecision(f"{REASON_KEY!r} must be a string")
    if not approved:
        return Decision(approved=False, reason=reason or None)
    return Decision(approved=True, edited_args=edited)


def check_edits(edited_args: Mapping[str, Any], params_schema: Mapping[str, Any]) -> str | None:
    """Check edited arguments against the tool's own argument schema.

    Returns None when they conform, else a client-safe phrase naming where and which rule
    failed (the offending value is not repeated).
    """
    schema = dict(params_schema)
    try:
        validator_class = validators.validator_for(schema)
        validator_class.check_schema(schema)
        validator = validator_class(schema)
        error = jsonschema_exceptions.best_match(validator.iter_errors(dict(edited_args)))
    except Exception:
        logger.exception("The tool's argument schema could not check edited arguments.")
        return f"{EDITED_ARGS_KEY!r} could not be checked against the tool's argument schema"
    if error is None:
        return None
    where = "".join(f"[{_shown(str(part))}]" for part in error.absolute_path)
    return (
        f"{EDITED_ARGS_KEY}{where} does not match the tool's argument schema "
        f"(rule {_shown(str(error.validator))!s})"
    )


def approval_response_schema(params_schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """The JSON schema of the answer an approval interrupt expects.

    ``approved`` (boolean) is required; ``reason`` (string) may go with a rejection; with the
    tool's ``params_schema``, ``editedArgs`` is typed by it, so a client can build a form from
    it. The tool schema's own definitions (``$defs``, ``definitions``) move to the root, where its
    local references (``#/$defs/...``) then resolve.
    """
    properties: dict[str, Any] = {APPROVED_KEY: {"type": "boolean"}}
    schema: dict[str, Any] = {"type": "object", "properties": properties}
    if params_schema is not None:
        edited = copy.deepcopy(dict(params_schema))
        for key in ("$defs", "definitions"):
            if key in edited:
                schema[key] = edited.pop(key)
        edited.setdefault("description", _EDITS_DESCRIPTION)
        properties[EDITED_ARGS_KEY] = edited
    properties[REASON_KEY] = {"type": "string", "description": _REASON_DESCRIPTION}
    schema["required"] = [APPROVED_KEY]
    return schema


def with_arguments(
    messages: Sequence[Message], edits: Mapping[tuple[int, str], str]
) -> list[Message]:
    """The messages with the tool calls named by ``(message index, call id)`` given new
    arguments: the history then shows the arguments that ran, under the original call ids."""
    out = list(messages)
    for index in sorted({index for index, _ in edits}):
        message = out[index]
        if not isinstance(message, AssistantMessage) or not message.tool_calls:
            continue
        calls = [
            call.model_copy(
                update={
                    "function": call.function.model_copy(
                        update={"arguments": edits[(index, call.id)]}
                    )
                }
            )
            if (index, call.id) in edits
            else call
            for call in message.tool_calls
        ]
        out[index] = message.model_copy(update={"tool_calls": calls})
    return out


def _shown(text: str) -> str:
    """A client-supplied name, shortened for a message."""
    return repr(text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 3] + "...")
