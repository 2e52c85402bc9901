"""Serve a :class:`FakeBotAPI` over HTTP on loopback, for bot processes started separately.

A bot run with ``SHBOT_API_URL=http://127.0.0.1:<port>`` calls
``/bot<token>/<method>`` here exactly as it would call Telegram; every call lands in the one
fake, so a benchmark sees what several bot processes sent to the same chats. PTB posts
form fields with non-string values JSON-encoded; they are decoded back before the fake
answers, so the fake gets the same parameters as through its in-process request hook; a
multipart upload (``sendPhoto``) hands its files over as PTB's ``multipart_data`` would.
"""

from __future__ import annotations

import json
import logging
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qsl

from tornado.httpserver import HTTPServer
from tornado.web import Application, RequestHandler

from .fake_telegram import FakeBotAPI

# Parameters Telegram takes as strings: never JSON-decoded (a text "123" stays a text).
STRING_PARAMS = frozenset(
    {
        "text",
        "caption",
        "callback_query_id",
        "url",
        "description",
        "short_description",
        "name",
        "language_code",
        "parse_mode",
        "secret_token",
        "ip_address",
    }
)


def decode_params(fields: dict[str, str]) -> dict[str, Any]:
    """Form fields as PTB sends them back to Python values."""
    out: dict[str, Any] = {}
    for key, raw in fields.items():
        if key in STRING_PARAMS:
            out[key] = raw
            continue
        try:
            out[key] = json.loads(raw)
        except ValueError:
            out[key] = raw
    return out


class _Handler(RequestHandler):
    def initialize(self, fake: FakeBotAPI) -> None:
        self.fake = fake

    async def post(self, token: str, method: str) -> None:
        if not token.startswith(f"{self.fake.bot_id}:"):
            self.set_status(401)
            self.write({"ok": False, "error_code": 401, "description": "Unauthorized"})
            return
        content_type = self.request.headers.get("Content-Type", "")
        files: dict[str, tuple[str, bytes, str]] = {}
        if content_type.startswith("multipart/form-data"):  # an upload (sendPhoto, ...)
            fields = {k: v[0].decode("utf-8") for k, v in self.request.body_arguments.items()}
            params = decode_params(fields)
            for name, parts in self.request.files.items():
                part = parts[0]
                files[name] = (part.filename, part.body, part.content_type)
        elif content_type.startswith("application/json"):
            params = json.loads(self.request.body.decode("utf-8") or "{}")
        else:
            body = self.request.body.decode("utf-8")
            params = decode_params(dict(parse_qsl(body, keep_blank_values=True)))
        request = SimpleNamespace(
            parameters=params, contains_files=bool(files), multipart_data=files
        )
        status, payload = await self.fake.do_request(f"/bot{token}/{method}", "POST", request)  # type: ignore[arg-type]
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.write(payload)

    get = post


def serve(fake: FakeBotAPI, port: int, host: str = "127.0.0.1") -> HTTPServer:
    """Start serving ``fake`` on ``host:port`` in the running event loop; ``stop()`` ends it."""
    # Error answers (a 400 "message is not modified") are normal here: no access log.
    logging.getLogger("tornado.access").setLevel(logging.ERROR)
    app = Application([(r"/bot([^/]+)/([A-Za-z]+)", _Handler, {"fake": fake})])
    server = HTTPServer(app)
    server.listen(port, address=host)
    return server
