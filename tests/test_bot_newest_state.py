"""Every group message ends in its newest state, and nothing committed is dropped (issue 23).

Whole games at the three human paces of ``bench messages`` (virtual clock, the real pacer
and a fake Bot API that answers 429 as Telegram does). Every group message's last
rendering is what the group holds at the end: the lobby, the board, each round's message and
the end card. A closed round whose last lines (the enactment, a power) the next round's
message tells in its recap line ("↩ Round 3: ...") is not edited again (it has scrolled
away: the issue's rule for claims, kept for every closed round), so each of those lines
must be in that newer message: what the group was owed reaches the screen either way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from unittest import mock

import pytest

from shbot.bot.delivery.outbox import Outbox
from shbot.devtools import driver as drv

TAG = re.compile(r"<[^>]+>")


@dataclass
class Delivery:
    slot: str
    seq: int
    teller: str | None  # the newer message that told it (no call made)
    text: str | None  # what its rendering shows (None: nothing to show)
    buttons: list[str]


def plain(html: str) -> str:
    """Text as the renderer writes it, without markup (the recap joins lines)."""
    return TAG.sub("", html).replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def labels(markup: Any) -> list[str]:
    rows = [] if markup is None else markup.inline_keyboard
    return [b.text for row in rows for b in row]


async def play(pace: str, seed: int) -> tuple[Any, int, list[Delivery], dict[tuple[str, int], int]]:
    """One 7-player game at ``pace``: the fake, the group, its group deliveries in order,
    and the message id each delivered (slot, seq) went to."""
    from shbot.bench.paced import run_games

    deliveries: list[Delivery] = []
    ids: dict[tuple[str, int], int] = {}
    fakes: list[Any] = []
    deliver_slot, ack, aexit = Outbox._deliver_slot, Outbox._ack, drv.Driver.__aexit__

    async def spy_deliver(
        self: Outbox, chat_id: int, record: Any, table: Any, slot: str, state: Any
    ) -> None:
        if chat_id < 0 and table.owed[slot][1] == 0:
            assert self.svc is not None
            teller = self.budget.teller(chat_id, table, slot, table.owed[slot])
            renderer = await self.svc.slot_renderer(chat_id, table)
            r = await renderer.render(chat_id, table, slot)
            text = None if r is None else r.text
            deliveries.append(
                Delivery(slot, table.owed[slot][0], teller, text, labels(r and r.markup))
            )
        await deliver_slot(self, chat_id, record, table, slot, state)

    async def spy_ack(self: Outbox, chat_id: int, gid: str, slot: str, seq: int, mid: Any, **k):
        if chat_id < 0 and mid is not None:
            ids[(slot, seq)] = mid
        return await ack(self, chat_id, gid, slot, seq, mid, **k)

    async def keep_fake(self: Any, *a: Any) -> Any:
        fakes.append(self.fake)
        return await aexit(self, *a)

    with (
        mock.patch.object(Outbox, "_deliver_slot", spy_deliver),
        mock.patch.object(Outbox, "_ack", spy_ack),
        mock.patch.object(drv.Driver, "__aexit__", keep_fake),
    ):
        row = await run_games(1, 7, pace, seed)
    assert row["incomplete"] == 0 and row["429s"] == 0, row
    fake = fakes[0]
    groups = {c.chat_id for c in fake.calls if isinstance(c.chat_id, int) and c.chat_id < 0}
    assert len(groups) == 1
    return fake, groups.pop(), deliveries, ids


@pytest.mark.looptime
@pytest.mark.parametrize(("pace", "seed"), [("fast", 3), ("normal", 4), ("slow", 5)])
async def test_every_group_message_ends_in_its_newest_state(pace: str, seed: int) -> None:
    fake, group, deliveries, ids = await play(pace, seed)
    held = {m.message_id: m for m in fake.messages(group)}
    newest: dict[str, Delivery] = {}  # slot -> its newest owed version, as rendered
    for d in deliveries:
        if d.text is not None and (d.slot not in newest or d.seq >= newest[d.slot].seq):
            newest[d.slot] = d
    last: dict[int, Delivery] = {}  # message id -> the newest version it was owed
    told: list[tuple[Delivery, int]] = []
    for slot, d in newest.items():
        mid = max(m for (s, _), m in ids.items() if s == slot)  # the slot's latest message
        if d.teller is not None:
            told.append((d, mid))
        else:
            assert (slot, d.seq) in ids, f"{slot} v{d.seq} was neither delivered nor told"
            last[mid] = d
    assert {"lobby", "board", "over"} <= {d.slot for d in last.values()}, last
    assert sum(s.startswith("round:") for s in newest) >= 3, sorted(newest)
    for mid, d in last.items():
        message = held[mid]
        assert message.text == d.text, (d.slot, message.text, d.text)  # a photo: its caption
        buttons = [b["text"] for b in message.buttons()]
        assert buttons == d.buttons, (d.slot, buttons, d.buttons)
    board = next(d for d in reversed(deliveries) if d.slot == "board" and d.teller is None)
    assert held[ids[(board.slot, board.seq)]].history, "the board was never edited"
    assert len(held[ids[(board.slot, board.seq)]].images) >= 2, "its picture never changed"
    # Nothing owed is dropped: a line a closed round's message never got is in the message
    # that told it, as the group holds it now.
    recapped = 0
    for d, mid in told:
        if not d.slot.startswith("round:") or d.text is None:
            continue  # the board: its picture is edited at the end (checked above)
        shown = plain(held[mid].text)
        newer = [plain(m.text) for m in held.values() if m.message_id > mid]
        for line in plain(d.text).split("\n"):
            if line and line not in shown:
                assert any(line in text for text in newer), (d.slot, line)
                recapped += 1
    # After the end, only the end card's rematch button is live in the group.
    live = [m for m in held.values() if m.buttons()]
    assert [m.message_id for m in live] == [ids[next(k for k in ids if k[0] == "over")]]
    if pace != "fast":  # at a human pace a session ends after its vote's result is out
        assert recapped > 0, "no closed round was told by a newer one: the check proves nothing"
