"""The approval signer on its own: what a signature binds, how ids carry it, expiry, keys."""

from __future__ import annotations

import hashlib
import hmac
import json
from datetime import datetime, timezone

import pytest

from ag_ui_openai_agents import Approvals, ApprovalSigner
from ag_ui_openai_agents.approvals.signing import (
    APPROVAL_SECRET_ENV,
    ApprovalSubject,
    SignatureCheck,
    canonical_arguments,
    signed_interrupt_id,
    signer_from_env,
    split_interrupt_id,
)

SECRET = "unit-test-secret-0123456789abcdef"
NOW = 1_800_000_000.0
SUBJECT = ApprovalSubject(
    "thread-1", "call_1", "issue_refund", '{"order_id": "A-17", "amount": 30}'
)


def signer(secret: object = SECRET, max_age: float = 60, now: float = NOW) -> ApprovalSigner:
    return ApprovalSigner.from_secret(secret, max_age, clock=lambda: now)  # type: ignore[arg-type]


def test_a_fresh_signature_checks_valid() -> None:
    signature = signer().sign(SUBJECT)
    assert signer().check(SUBJECT, signature.token) is SignatureCheck.VALID
    assert signature.issued_at == int(NOW)
    assert signature.expires_at == "2027-01-15T08:01:00Z"
    assert datetime.fromisoformat(
        signature.expires_at.replace("Z", "+00:00")
    ) == datetime.fromtimestamp(NOW + 60, tz=timezone.utc)


def test_the_mac_is_hmac_sha256_over_every_bound_field() -> None:
    """Recompute the mac from the documented fields with the standard library."""
    token = signer().sign(SUBJECT).token
    mark, key_id, issued, mac = token.split(".")
    fields = [
        "ag-ui-openai-agents/approval/1",
        "thread-1",
        "call_1",
        "issue_refund",
        ["json", '{"amount":30,"order_id":"A-17"}'],
        int(issued),
    ]
    message = json.dumps(fields, separators=(",", ":")).encode()
    digest = hmac.new(SECRET.encode(), message, hashlib.sha256).digest()
    import base64

    assert mac == base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
    assert mark == "agui1" and len(key_id) == 8


@pytest.mark.parametrize(
    "changed",
    [
        ApprovalSubject("thread-2", "call_1", "issue_refund", SUBJECT.arguments),
        ApprovalSubject("thread-1", "call_2", "issue_refund", SUBJECT.arguments),
        ApprovalSubject("thread-1", "call_1", "delete_account", SUBJECT.arguments),
        ApprovalSubject("thread-1", "call_1", "issue_refund", '{"order_id": "A-17", "amount": 31}'),
        ApprovalSubject("thread-1", "call_1", "issue_refund", '{"order_id": "A-17"}'),
    ],
    ids=["thread", "call", "tool", "amount", "missing-argument"],
)
def test_every_bound_field_matters(changed: ApprovalSubject) -> None:
    token = signer().sign(SUBJECT).token
    assert signer().check(changed, token) is SignatureCheck.MISMATCH


def test_the_pause_time_is_bound() -> None:
    mark, key_id, issued, mac = signer().sign(SUBJECT).token.split(".")
    later = f"{mark}.{key_id}.{int(issued) + 3600}.{mac}"
    assert signer().check(SUBJECT, later) is SignatureCheck.MISMATCH


def test_canonical_arguments_ignore_spacing_and_key_order() -> None:
    assert canonical_arguments('{"b": [1, 2], "a": "é"}') == canonical_arguments(
        '{"a":"é","b":[1,2]}'
    )
    assert canonical_arguments('{"a": 1}') == ["json", '{"a":1}']
    assert canonical_arguments("not json") == ["text", "not json"]
    assert canonical_arguments("") == ["text", ""]


def test_repeated_keys_are_bound_as_written() -> None:
    """Parsers disagree on which of two equal keys wins, so such arguments are not normalised."""
    repeated = '{"amount": 1, "amount": 99999}'
    assert canonical_arguments(repeated) == ["text", repeated]
    genuine = ApprovalSubject("t", "c", "issue_refund", '{"amount": 1}')
    token = signer().sign(genuine).token
    tampered = ApprovalSubject("t", "c", "issue_refund", '{"amount": 99999, "amount": 1}')
    assert signer().check(tampered, token) is SignatureCheck.MISMATCH


def test_expiry_is_checked_against_the_verifier_max_age() -> None:
    token = signer().sign(SUBJECT).token
    assert signer(now=NOW + 60).check(SUBJECT, token) is SignatureCheck.VALID
    assert signer(now=NOW + 61).check(SUBJECT, token) is SignatureCheck.EXPIRED
    assert signer(max_age=120, now=NOW + 61).check(SUBJECT, token) is SignatureCheck.VALID


def test_a_forged_mac_is_a_mismatch_even_when_the_call_is_also_expired() -> None:
    mark, key_id, issued, _ = signer().sign(SUBJECT).token.split(".")
    forged = f"{mark}.{key_id}.{issued}.{'A' * 43}"
    assert signer(now=NOW + 10_000).check(SUBJECT, forged) is SignatureCheck.MISMATCH


@pytest.mark.parametrize(
    "token",
    [
        "",
        "agui1",
        "agui1.a.b",
        "agui2.AAAAAAAA.1.AAAA",
        "agui1.AAAAAAAA.-1.AAAA",
        "agui1.A A.1.B",
        "agui1.AAAAAAAA.1.",
        "agui1.AAAAAAAA.\uff11\uff12.AAAA",  # full-width digits
        "agui1.AAAAAAAA.1234567890123.AAAA",
    ],
)
def test_malformed_tokens(token: str) -> None:
    assert signer().check(SUBJECT, token) is SignatureCheck.MALFORMED


def test_missing_token_is_unsigned() -> None:
    assert signer().check(SUBJECT, None) is SignatureCheck.UNSIGNED


def test_rotation_first_signs_any_verifies() -> None:
    old, new = "old-secret-aaaaaaaaaaaaaaaa", "new-secret-bbbbbbbbbbbbbbbb"
    old_token = signer(old).sign(SUBJECT).token
    rotating = signer([new, old])
    assert rotating.check(SUBJECT, old_token) is SignatureCheck.VALID
    new_token = rotating.sign(SUBJECT).token
    assert signer(new).check(SUBJECT, new_token) is SignatureCheck.VALID
    assert signer(old).check(SUBJECT, new_token) is SignatureCheck.UNKNOWN_KEY
    assert signer(new).check(SUBJECT, old_token) is SignatureCheck.UNKNOWN_KEY


def test_bytes_and_text_secrets_are_the_same_key() -> None:
    token = signer(SECRET.encode()).sign(SUBJECT).token
    assert signer(SECRET).check(SUBJECT, token) is SignatureCheck.VALID


def test_interrupt_ids_carry_the_token_after_the_call_id() -> None:
    token = signer().sign(SUBJECT).token
    interrupt_id = signed_interrupt_id("call.with.dots", token)
    assert split_interrupt_id(interrupt_id) == ("call.with.dots", token)
    assert split_interrupt_id("call_1") == ("call_1", None)
    assert split_interrupt_id("call.v2") == ("call.v2", None)
    assert split_interrupt_id(".agui1.x") == (".agui1.x", None)


@pytest.mark.parametrize(
    ("secret", "max_age", "message"),
    [
        ("short", 60, "at least 16 bytes"),
        ([], 60, "at least one secret"),
        (["x" * 16, ""], 60, "at least 16 bytes"),
        ("x" * 16, 0, "must be positive"),
        ("x" * 16, float("inf"), "finite"),
    ],
)
def test_bad_configuration_is_refused(secret: object, max_age: float, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ApprovalSigner.from_secret(secret, max_age)  # type: ignore[arg-type]


def test_signer_from_the_environment() -> None:
    assert signer_from_env(environ={}) is None
    for blank in ("", "   ", " , ", "\t,\n"):
        with pytest.raises(ValueError, match=APPROVAL_SECRET_ENV):
            signer_from_env(environ={APPROVAL_SECRET_ENV: blank})
    from_env = signer_from_env(30, environ={APPROVAL_SECRET_ENV: f"{SECRET},{'n' * 20}"})
    assert from_env == ApprovalSigner.from_secret([SECRET, "n" * 20], 30)


def test_signatures_do_not_show_the_secret() -> None:
    signature = signer().sign(SUBJECT)
    assert SECRET not in signature.token and SECRET not in repr(signer().check(SUBJECT, None))


def test_no_repr_shows_the_secret() -> None:
    from ag_ui.core import RunAgentInput

    from ag_ui_openai_agents import ResumedToolCalls

    signer = ApprovalSigner.from_secret(SECRET)
    run_input = RunAgentInput(
        thread_id="t", run_id="r", state={}, messages=[], tools=[], context=[], forwarded_props={}
    )
    resumed = ResumedToolCalls(run_input, [], [], None, approvals=Approvals(signer=signer))
    for text in (repr(signer), repr(resumed), str(resumed)):
        assert SECRET not in text
        assert SECRET.encode().hex() not in text
