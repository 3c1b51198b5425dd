"""``Approvals``: how the approval-gated tools of a wrapper or a resume are answered.

One object holds every setting of the approval capability: who signs the pauses, whether
unsigned approvals are meant, which tools a person may edit the arguments of, how much one
request may ask to match, and the application's last word before an approved call runs.
``OpenAIAgentsAgent(approvals=...)``, ``resume_tool_calls(approvals=...)`` and
``to_agui(resumed=...)`` (through the resume's result) all read the same object.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Collection
from dataclasses import dataclass, field
from typing import Any, TypeAlias, Union

from ag_ui.core import RunAgentInput

from ag_ui_openai_agents.approvals.limits import ResumeLimits
from ag_ui_openai_agents.approvals.signing import ApprovalSigner

__all__ = ["ApprovalRequest", "Approvals", "Authorize"]


@dataclass(frozen=True)
class ApprovalRequest:
    """One approved call, as :attr:`Approvals.authorize` sees it before anything runs."""

    tool_name: str
    """The tool the call names."""
    arguments: str
    """The arguments that would run (JSON text): the person's edits when ``edited``."""
    edited: bool
    """Whether the person changed the model's arguments."""
    run_input: RunAgentInput
    """The request being answered."""
    request: Any
    """The HTTP request (FastAPI's ``Request``); None on the translator path without one."""


Authorize: TypeAlias = Callable[[ApprovalRequest], Union[bool, Awaitable[bool]]]  # noqa: UP007
"""``authorize(req) -> bool`` (sync or async): whether this approved call may run."""


@dataclass(frozen=True)
class Approvals:
    """The approval settings: signing, edits, limits and authorisation.

    ``Approvals()`` signs with ``AG_UI_APPROVAL_SECRET`` when that is set (the wrapper reads it),
    offers no edits, caps a request at ``ResumeLimits()`` and authorises every decided call.
    """

    signer: ApprovalSigner | None = None
    """Signs every pause and checks every approval against it
    (``ApprovalSigner.from_secret(secret, max_age)``). None: the wrapper uses
    ``AG_UI_APPROVAL_SECRET``'s when set, else approvals are unsigned."""
    unsigned: bool = False
    """Unsigned approvals are meant (a development server, a trusted client): silences the
    once-per-process warning. Cannot be combined with a signer or the secret variable."""
    editable: bool | Collection[str] = ()
    """The tools whose arguments a person may edit when approving (``editedArgs``), by name;
    True: every gated tool. Only these are offered edits; an edit of any other runs nothing
    and ends the request with ``INVALID_APPROVAL``."""
    limits: ResumeLimits = field(default_factory=ResumeLimits)
    """How many resume entries and open tool calls one request may carry."""
    authorize: Authorize | None = None
    """Called before any approved call runs, once per call; when it returns False for any, the
    whole request runs nothing, ends with RUN_ERROR ``APPROVAL_DENIED`` and every interrupt
    stays open."""

    def __post_init__(self) -> None:
        if self.unsigned and self.signer is not None:
            raise ValueError("Approvals(unsigned=True) cannot be combined with a signer")
        if isinstance(self.editable, str):
            raise TypeError("Approvals(editable=...) takes tool names (a tuple) or True")
        if not isinstance(self.editable, bool):
            names = tuple(self.editable)
            if not all(isinstance(name, str) and name for name in names):
                raise TypeError("Approvals(editable=...) takes tool names (a tuple) or True")
            object.__setattr__(self, "editable", frozenset(names))
        if not isinstance(self.limits, ResumeLimits):
            raise TypeError("Approvals(limits=...) takes a ResumeLimits")
        if self.authorize is not None and not callable(self.authorize):
            raise TypeError("Approvals(authorize=...) takes a function of an ApprovalRequest")

    def may_edit(self, tool_name: str) -> bool:
        """Whether a person may edit the arguments of calls of ``tool_name``."""
        if isinstance(self.editable, bool):
            return self.editable
        return tool_name in self.editable

    async def authorized(self, request: ApprovalRequest) -> bool:
        """The application's verdict on one approved call (True without a hook)."""
        if self.authorize is None:
            return True
        verdict = self.authorize(request)
        if inspect.isawaitable(verdict):
            verdict = await verdict
        return verdict is True
