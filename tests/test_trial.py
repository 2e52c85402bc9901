"""The trial tool's own parts (``python -m shbot.devtools.trial``): the polling fake notes
when each press was handed to a bot process, and the secrets check finds a hand shown in a
group. The trial itself runs for minutes against a real bot process: not a test."""

from __future__ import annotations

from types import SimpleNamespace

from shbot.bot import render as r
from shbot.devtools.fake_records import Call
from shbot.devtools.trial import parse_args
from shbot.devtools.trial_api import TrialAPI
from shbot.devtools.trial_report import round_one_prefix, secrets_in_group
from shbot.engine import FASCIST, LIBERAL
from shbot.i18n import translator


async def poll(api: TrialAPI, offset: int) -> bytes:
    request = SimpleNamespace(parameters={"offset": offset, "timeout": 0})
    _, body = await api.do_request("/botX/getUpdates", "POST", request)
    return body


async def test_presses_are_timed_each_time_served_and_counted_when_served_again() -> None:
    api = TrialAPI(latency=0)
    alice = {"id": 301, "is_bot": False, "first_name": "Alice"}
    chat = api.add_chat(-1_000_000_000_001)
    api.command(alice, alice["id"], "/start")
    assert alice["id"] in api.started
    message = api.receive_message(chat.id, alice, "hello")
    query = api.press(alice, message, "abcd:1:v:1")
    assert b"abcd:1:v:1" in await poll(api, 0)
    first = api.served[query]
    await poll(api, 0)  # a new process asks again: nothing was confirmed
    assert len(api.served[query]) == 2 and api.served[query][0] == first[0]
    assert api.served_again == 2
    assert b'result": []' in await poll(api, 3)


def test_a_hand_in_the_group_is_a_secret_and_a_round_title_is_not() -> None:
    t = translator("en")
    prefix = round_one_prefix(t)
    assert prefix == "<b>Round 1</b> · Presidential candidate: "
    public = Call("sendMessage", {"text": prefix + "Alice"}, -1, 200, None, 0.0)
    hand = r.hand_text(t, [LIBERAL, FASCIST, FASCIST])
    leak = Call("editMessageText", {"text": f"Alice drew {hand}"}, -1, 200, None, 1.0)
    assert secrets_in_group([public], t) == []
    assert secrets_in_group([public, leak], t)


def test_options() -> None:
    args = parse_args(["--store", "redis", "--kill-at", "0"])
    assert args.store == "redis" and args.kill_at == 0
