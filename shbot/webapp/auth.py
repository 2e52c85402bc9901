"""Who opened the Mini App: Telegram's signed ``initData``, checked on every request.

Telegram hands the page a query string (``initData``) signed for the user who opened it
(https://core.telegram.org/bots/webapps#validating-data-received-via-the-mini-app):

* ``secret = HMAC_SHA256(key="WebAppData", msg=bot_token)``
* ``hash = hex(HMAC_SHA256(key=secret, msg=data_check_string))``, where the data-check
  string is every field but ``hash``, as ``key=value`` lines sorted by key.

The user, the start parameter and ``auth_date`` are inside the signature, so a page cannot
claim to be someone else, nor reuse another user's data, nor keep old data for ever: only
what passes :func:`verify` names a user. Pure: no I/O, the clock is a parameter.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlencode

#: How long signed data stays valid: Telegram signs it when the app opens; a page left open
#: reconnects with the same data, so a day (a long evening of games) and no more.
MAX_AGE = 24 * 3600.0
#: A clock ahead of ours by more than this is not trusted either.
SKEW = 300.0
MAX_LENGTH = 8192  # Telegram's initData is a few hundred bytes


class AuthError(ValueError):
    """The data is not Telegram's for this bot, now; ``reason`` says which check failed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class WebUser:
    """A user Telegram vouched for."""

    id: int
    name: str
    language_code: str | None
    start_param: str | None
    auth_date: int


def secret_key(token: str) -> bytes:
    return hmac.new(b"WebAppData", token.encode(), hashlib.sha256).digest()


def check_string(fields: dict[str, str]) -> str:
    return "\n".join(f"{k}={fields[k]}" for k in sorted(fields) if k != "hash")


def sign(fields: dict[str, str], token: str) -> str:
    """``fields`` as initData signed with ``token`` (what Telegram does; tests and the
    browser tests use it to open the page as a given user)."""
    data = {k: v for k, v in fields.items() if k != "hash"}
    digest = hmac.new(secret_key(token), check_string(data).encode(), hashlib.sha256)
    return urlencode({**data, "hash": digest.hexdigest()})


def init_data(
    token: str,
    user: dict[str, object],
    *,
    auth_date: float | None = None,
    start_param: str | None = None,
) -> str:
    """Signed initData for ``user`` (a Telegram User object as JSON)."""
    fields = {
        "query_id": "AAH" + str(user.get("id", "")),
        "user": json.dumps(user, separators=(",", ":"), ensure_ascii=False),
        "auth_date": str(int(time.time() if auth_date is None else auth_date)),
    }
    if start_param is not None:
        fields["start_param"] = start_param
    return sign(fields, token)


def _fields(raw: str) -> dict[str, str]:
    if not raw or len(raw) > MAX_LENGTH:
        raise AuthError("missing" if not raw else "too_long")
    try:
        pairs = parse_qsl(raw, keep_blank_values=True, strict_parsing=True)
    except ValueError:
        raise AuthError("malformed") from None
    fields = dict(pairs)
    if len(fields) != len(pairs):
        raise AuthError("duplicate")  # which of two values was signed is not for us to guess
    return fields


def verify(raw: str, token: str, *, now: float | None = None, max_age: float = MAX_AGE) -> WebUser:
    """The user ``raw`` was signed for; :class:`AuthError` unless it is intact and fresh."""
    fields = _fields(raw)
    given = fields.get("hash", "")
    if not given:
        raise AuthError("no_hash")
    expected = hmac.new(secret_key(token), check_string(fields).encode(), hashlib.sha256)
    if not hmac.compare_digest(expected.hexdigest(), given.lower()):
        raise AuthError("bad_signature")
    try:
        auth_date = int(fields["auth_date"])
        user = json.loads(fields["user"])
        user_id = int(user["id"])
    except (KeyError, TypeError, ValueError):
        raise AuthError("malformed") from None
    clock = time.time() if now is None else now
    if auth_date > clock + SKEW:
        raise AuthError("future")
    if clock - auth_date > max_age:
        raise AuthError("expired")
    if user_id >= 1 << 63:
        raise AuthError("malformed")  # no such user: the store's ids are 64-bit
    if user_id <= 0 or user.get("is_bot"):
        raise AuthError("not_a_person")
    first = str(user.get("first_name") or "")
    last = str(user.get("last_name") or "")
    code = user.get("language_code")
    return WebUser(
        id=user_id,
        name=f"{first} {last}".strip(),
        language_code=code if isinstance(code, str) else None,
        start_param=fields.get("start_param") or None,
        auth_date=auth_date,
    )
