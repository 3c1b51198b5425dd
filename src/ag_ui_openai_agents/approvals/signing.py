"""Signed approvals: the proof that the server paused on a call, in the interrupt id.

Without signing, a resume request is trusted as sent: a client can write an assistant tool call
into its history and approve it, and the gated tool runs with arguments no run ever paused on.
With a secret, every approval interrupt the server emits gets an id of the form
``<call id>.agui1.<key id>.<pause time>.<mac>``, where the mac is an HMAC-SHA256 (standard
library ``hmac``) over the thread id, the call id, the tool name, the canonical form of the
model's arguments and the pause time. The resume entry's ``interruptId`` comes back exactly as
the server sent it with both the 1.0 and the pre-1.0 TypeScript clients, so the proof survives
the round trip with no work by the application and no state on the server. ``tool_call_id``
stays the plain call id.

Keys rotate: the first secret signs, every secret verifies. Any process with one of the secrets
verifies the interrupts of any other.
"""

from __future__ import annotations

import base64
import enum
import hashlib
import hmac
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Union

APPROVAL_SECRET_ENV = "AG_UI_APPROVAL_SECRET"
"""Environment variable ``OpenAIAgentsAgent`` reads when it is given no signer: one secret, or
several separated by commas (the first signs, all verify). Unset: no signing; set but empty or
blank: an error."""

DEFAULT_APPROVAL_MAX_AGE = 86400.0
"""Seconds an approval interrupt stays valid after the pause: one day."""

MIN_SECRET_BYTES = 16
"""Shortest secret accepted; use 32 random bytes or more (``secrets.token_urlsafe(32)``)."""

_TOKEN_MARK = "agui1"
_ID_SEPARATOR = f".{_TOKEN_MARK}."
_MAC_DOMAIN = "ag-ui-openai-agents/approval/1"
_KEY_ID_LABEL = b"ag-ui-openai-agents/approval-key-id/1"
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

ApprovalSecret = Union[str, bytes, Sequence[Union[str, bytes]]]  # noqa: UP007
"""One secret, or a list of them (the first signs, any verifies)."""


def _now() -> float:
    """The wall clock in seconds since the epoch (a seam for tests)."""
    return time.time()


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def canonical_arguments(arguments: str) -> list[str]:
    """The model's arguments in a form that does not depend on spacing or key order.

    JSON arguments become ``["json", <sorted, compact JSON>]``. Anything else, JSON with a
    repeated key included (parsers disagree on which value wins), is bound as it is:
    ``["text", <the raw string>]``.
    """
    try:
        value = json.loads(arguments, object_pairs_hook=_no_repeated_keys)
    except (TypeError, ValueError):
        return ["text", arguments]
    return ["json", json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)]


def _no_repeated_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [key for key, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError("repeated key")
    return dict(pairs)


@dataclass(frozen=True)
class ApprovalSubject:
    """What one signature vouches for: a tool call the server paused on, in one thread."""

    thread_id: str
    """``RunAgentInput.thread_id`` of the run that paused."""
    call_id: str
    """The paused tool call's id."""
    tool_name: str
    """The name the model called."""
    arguments: str
    """The arguments exactly as the model produced them (bound in canonical form)."""


@dataclass(frozen=True)
class ApprovalSignature:
    """A signature issued for one paused call."""

    token: str
    """What follows the call id in the interrupt id (``agui1.<key id>.<time>.<mac>``)."""
    issued_at: int
    """Pause time, whole seconds since the epoch."""
    expires_at: str
    """ISO 8601 (UTC) time after which the approval is no longer accepted."""


class SignatureCheck(enum.Enum):
    """The result of checking one approval's signature."""

    VALID = "valid"
    EXPIRED = "expired"
    UNSIGNED = "unsigned"
    MALFORMED = "malformed"
    UNKNOWN_KEY = "unknown key"
    MISMATCH = "mismatch"

    @property
    def explanation(self) -> str:
        """A client-safe sentence saying what failed (nothing about keys or signatures)."""
        return _EXPLANATIONS[self]


_EXPLANATIONS = {
    SignatureCheck.VALID: "the approval is valid",
    SignatureCheck.EXPIRED: "the approval has expired",
    SignatureCheck.UNSIGNED: (
        "the approval carries no signature, so the server cannot tell that it paused on this call"
    ),
    SignatureCheck.MALFORMED: "the approval's signature is malformed",
    SignatureCheck.UNKNOWN_KEY: "the approval was signed with a key this server does not accept",
    SignatureCheck.MISMATCH: (
        "the approval's signature does not match this call: its thread, tool name or arguments "
        "differ from the call the server paused on"
    ),
}


@dataclass(frozen=True)
class ApprovalSigner:
    """Signs approval interrupts and checks the answers to them, with no server state.

    ``secrets``: the first signs, every one verifies (rotate by putting the new secret first
    and dropping the old one once its interrupts have expired). ``max_age``: seconds after the
    pause during which an approval is accepted. ``clock`` returns the time in seconds since the
    epoch (``time.time`` by default).
    """

    secrets: tuple[bytes, ...] = field(repr=False)
    """The secrets as bytes; the first signs. Left out of ``repr``, so logs never show them."""
    max_age: float = DEFAULT_APPROVAL_MAX_AGE
    """Seconds an approval stays valid after the pause."""
    clock: Callable[[], float] | None = field(default=None, compare=False)
    """Time source; None reads the wall clock."""

    def __post_init__(self) -> None:
        if not self.secrets:
            raise ValueError("approval signing needs at least one secret")
        for secret in self.secrets:
            if not isinstance(secret, bytes) or len(secret) < MIN_SECRET_BYTES:
                raise ValueError(
                    f"every approval secret must be at least {MIN_SECRET_BYTES} bytes long "
                    "(use secrets.token_urlsafe(32))"
                )
        if not (isinstance(self.max_age, (int, float)) and math.isfinite(self.max_age)):
            raise ValueError("max_age must be a finite number of seconds")
        if self.max_age <= 0:
            raise ValueError("max_age must be positive")

    @classmethod
    def from_secret(
        cls,
        secret: ApprovalSecret,
        max_age: float = DEFAULT_APPROVAL_MAX_AGE,
        *,
        clock: Callable[[], float] | None = None,
    ) -> ApprovalSigner:
        """Build a signer from one secret or a list of them (text is encoded as UTF-8)."""
        items = [secret] if isinstance(secret, (str, bytes)) else list(secret)
        encoded = tuple(s.encode("utf-8") if isinstance(s, str) else s for s in items)
        return cls(encoded, max_age, clock)

    def sign(self, subject: ApprovalSubject) -> ApprovalSignature:
        """Sign a paused call now, with the first secret."""
        issued = int(self._time())
        key = self.secrets[0]
        mac = _mac(key, subject, issued)
        token = f"{_TOKEN_MARK}.{_key_id(key)}.{issued}.{mac}"
        expires = datetime.fromtimestamp(issued + self.max_age, tz=timezone.utc)
        return ApprovalSignature(token, issued, expires.isoformat().replace("+00:00", "Z"))

    def check(self, subject: ApprovalSubject, token: str | None) -> SignatureCheck:
        """Check ``token`` (from the answered interrupt id) against the call in the history."""
        if token is None:
            return SignatureCheck.UNSIGNED
        parts = token.split(".")
        if len(parts) != 4 or parts[0] != _TOKEN_MARK or not _well_formed(parts):
            return SignatureCheck.MALFORMED
        _, key_id, issued_text, mac = parts
        keys = [key for key in self.secrets if hmac.compare_digest(_key_id(key), key_id)]
        if not keys:
            return SignatureCheck.UNKNOWN_KEY
        issued = int(issued_text)
        if not any(hmac.compare_digest(_mac(key, subject, issued), mac) for key in keys):
            return SignatureCheck.MISMATCH
        if self._time() > issued + self.max_age:
            return SignatureCheck.EXPIRED
        return SignatureCheck.VALID

    def _time(self) -> float:
        return self.clock() if self.clock is not None else _now()


def _well_formed(parts: list[str]) -> bool:
    _, key_id, issued, mac = parts
    return (
        issued.isascii()
        and issued.isdigit()
        and len(issued) <= 12
        and all(set(text) <= _B64_CHARS and text for text in (key_id, mac))
    )


def _key_id(key: bytes) -> str:
    """A short public label of a key, so a verifier knows which of its keys to try."""
    return _b64(hmac.new(key, _KEY_ID_LABEL, hashlib.sha256).digest()[:6])


def _mac(key: bytes, subject: ApprovalSubject, issued: int) -> str:
    fields = [
        _MAC_DOMAIN,
        subject.thread_id,
        subject.call_id,
        subject.tool_name,
        canonical_arguments(subject.arguments),
        issued,
    ]
    message = json.dumps(fields, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return _b64(hmac.new(key, message, hashlib.sha256).digest())


def signed_interrupt_id(call_id: str, token: str) -> str:
    """The interrupt id carrying ``token``: ``<call id>.<token>``."""
    return f"{call_id}.{token}"


def split_interrupt_id(interrupt_id: str) -> tuple[str, str | None]:
    """Split an interrupt id into the call id it answers and its token (None when unsigned)."""
    position = interrupt_id.rfind(_ID_SEPARATOR)
    if position <= 0:
        return interrupt_id, None
    return interrupt_id[:position], interrupt_id[position + 1 :]


def signer_from_env(
    max_age: float = DEFAULT_APPROVAL_MAX_AGE, *, environ: Mapping[str, str] | None = None
) -> ApprovalSigner | None:
    """The signer :data:`APPROVAL_SECRET_ENV` configures, or None when it is unset.

    Only ``OpenAIAgentsAgent`` (and so the FastAPI shortcut) calls this: the translator and
    ``resume_tool_calls`` read no environment variable.
    """
    secrets = approval_secrets_from_env(environ)
    return ApprovalSigner.from_secret(secrets, max_age) if secrets else None


def approval_secrets_from_env(environ: Mapping[str, str] | None = None) -> list[str]:
    """The secrets :data:`APPROVAL_SECRET_ENV` lists (comma-separated, first signs; [] if unset).

    Raises ``ValueError`` when the variable is set but lists no secret (empty, or only blanks
    and commas): a deployment that meant to sign must not silently run unsigned.
    """
    env = os.environ if environ is None else environ
    value = env.get(APPROVAL_SECRET_ENV)
    if value is None:
        return []
    secrets = [s.strip() for s in value.split(",") if s.strip()]
    if not secrets:
        raise ValueError(
            f"{APPROVAL_SECRET_ENV} is set but lists no secret; set it to a secret "
            "(secrets.token_urlsafe(32)), or unset it"
        )
    return secrets
