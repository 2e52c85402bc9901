"""The Mini App's initData check (shbot/webapp/auth.py): only Telegram's intact, fresh
signature for this bot names a user; every other case is refused with its reason."""

from __future__ import annotations

import hashlib
import hmac
import json
from urllib.parse import parse_qsl, urlencode

import pytest

from shbot.webapp.auth import MAX_AGE, AuthError, check_string, init_data, sign, verify

TOKEN = "123456:" + "A" * 35
OTHER_TOKEN = "654321:" + "B" * 35
NOW = 1_800_000_000.0
ALICE = {"id": 101, "first_name": "Alice", "language_code": "fr"}
BOB = {"id": 202, "first_name": "Bob"}


def fields(raw: str) -> dict[str, str]:
    return dict(parse_qsl(raw, keep_blank_values=True))


def good(user: dict[str, object] = ALICE, **kw: object) -> str:
    return init_data(TOKEN, user, auth_date=NOW - 60, **kw)  # type: ignore[arg-type]


def refused(raw: str, reason: str, token: str = TOKEN) -> None:
    with pytest.raises(AuthError) as info:
        verify(raw, token, now=NOW)
    assert info.value.reason == reason


def test_telegram_example_shape_is_accepted() -> None:
    user = verify(good(start_param="c-100123"), TOKEN, now=NOW)
    assert (user.id, user.name, user.language_code) == (101, "Alice", "fr")
    assert user.start_param == "c-100123"
    assert user.auth_date == int(NOW - 60)


def test_the_signature_follows_telegrams_spec_written_out() -> None:
    """Independently of sign(): secret = HMAC(key "WebAppData", token), hash over the
    sorted lines without hash (a new field such as ``signature`` included)."""
    data = {
        "auth_date": str(int(NOW)),
        "query_id": "AAHx",
        "user": json.dumps(ALICE),
        "signature": "abc",
    }
    lines = "\n".join(f"{k}={data[k]}" for k in sorted(data))
    secret = hmac.new(b"WebAppData", TOKEN.encode(), hashlib.sha256).digest()
    digest = hmac.new(secret, lines.encode(), hashlib.sha256).hexdigest()
    assert verify(urlencode({**data, "hash": digest}), TOKEN, now=NOW).id == 101
    assert check_string({**data, "hash": digest}) == lines


def test_forged_with_the_login_widget_key_is_refused() -> None:
    """A signature made with another derivation (the Login Widget's sha256(token))."""
    data = fields(good())
    del data["hash"]
    key = hashlib.sha256(TOKEN.encode()).digest()
    digest = hmac.new(key, check_string(data).encode(), hashlib.sha256).hexdigest()
    refused(urlencode({**data, "hash": digest}), "bad_signature")


def test_forged_hash_is_refused() -> None:
    data = fields(good())
    data["hash"] = "0" * 64
    refused(urlencode(data), "bad_signature")


def test_wrong_token_is_refused() -> None:
    refused(init_data(OTHER_TOKEN, ALICE, auth_date=NOW), "bad_signature")
    refused(good(), "bad_signature", token=OTHER_TOKEN)


def test_expired_is_refused() -> None:
    refused(init_data(TOKEN, ALICE, auth_date=NOW - MAX_AGE - 1), "expired")


def test_from_the_future_is_refused() -> None:
    refused(init_data(TOKEN, ALICE, auth_date=NOW + 3600), "future")


def test_tampered_fields_are_refused() -> None:
    for key, value in (("auth_date", str(int(NOW))), ("start_param", "c-1"), ("query_id", "x")):
        data = fields(good())
        data[key] = value
        refused(urlencode(data), "bad_signature")


def test_replayed_for_another_user_is_refused() -> None:
    """Alice's signed data with Bob's user object (or only his id) in it."""
    data = fields(good())
    data["user"] = json.dumps(BOB)
    refused(urlencode(data), "bad_signature")
    data = fields(good())
    data["user"] = data["user"].replace('"id":101', '"id":202')
    refused(urlencode(data), "bad_signature")


def test_missing_hash_and_missing_data_are_refused() -> None:
    data = fields(good())
    del data["hash"]
    refused(urlencode(data), "no_hash")
    refused("", "missing")
    refused("hash=", "no_hash")


def test_duplicate_and_malformed_fields_are_refused() -> None:
    refused(good() + "&user=" + json.dumps(BOB), "duplicate")
    refused("a&&b", "malformed")
    refused("x" * 9000, "too_long")
    no_user = sign({"auth_date": str(int(NOW)), "query_id": "q"}, TOKEN)
    refused(no_user, "malformed")


def test_a_bot_account_is_refused() -> None:
    refused(good({"id": 5, "first_name": "b", "is_bot": True}), "not_a_person")
