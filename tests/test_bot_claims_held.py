"""The President's claim rides on the edit that closes their hand (issue 23, private calls):
pressed before the session ends it is held, unknown to the group until the Chancellor has
enacted; at the end only the claim prompt a player sees is closed, an older one when pressed.
"""

from __future__ import annotations

from shbot.bot import callbacks as cb
from shbot.engine import Phase
from shbot.table import claims
from tests.botplay import Bot, Turn, check_game, play_planned, stale_buttons
from tests.harness import make_users
from tests.test_bot_claims import EN, claim_buttons


async def test_the_presidents_claim_is_asked_on_the_discard_edit_and_held_until_enacted(
    bot: Bot,
) -> None:
    users = make_users(5)
    by_id = {u.id: u for u in users}
    group = bot.h.group(creator=users[0], members=users[1:])
    seen: list[str] = []

    async def hook(turn: Turn) -> None:
        await bot.settle()
        table = await bot.table(group)
        assert table is not None and table.game is not None
        if not seen and turn.phase is Phase.CHANCELLOR_ENACT:
            seen.append("held")
            president = by_id[table.at(table.game.president).id]
            mine = bot.fake.messages(president.id)
            assert not [m for m in mine if m.text.startswith("🗣")], "no claim message of its own"
            (hand,) = [m for m in mine if claim_buttons(m)]
            assert hand.history[0].startswith("🎩 You are President. You drew:")
            assert hand.text.startswith("🎩 You discarded a ")
            assert hand.text.endswith(
                "🗣 Round 1: what do you tell the group you drew as President?"
            )
            press = claim_buttons(hand)[0]
            data = cb.game_data(table.gid, press.step, cb.CLAIM, "dFFF")
            query = await bot.h.press(president, hand, data=data)
            await bot.settle()
            held = "Noted: the group will hear your claim once the session ends."
            assert bot.h.answer(query).text == held
            hand = bot.fake.message(president.id, hand.message_id)
            assert not hand.buttons() and hand.text.endswith(
                "🗣 Round 1: you tell the group: 🔴🔴🔴. They hear it once the session ends."
            )
            assert not any("🔴🔴🔴" in m.text for m in bot.fake.messages(group.id))
            assert not any(
                "🔴🔴🔴" in call.shown_text() for call in bot.fake.calls if call.chat_id == group.id
            ), "the group never saw it, not even in an earlier version of a message"
            later = await bot.table(group)
            assert later is not None and later.talk.get("claims", {}) == {}
        elif seen == ["held"] and turn.table.game is not None and turn.table.game.round == 2:
            seen.append("made")
            newest = bot.fake.message(group.id, table.shown["round:2"])
            assert "(President): 🔴🔴🔴" in newest.text, newest.text
            assert claims.claim_of(table, "1:drawn") is not None
            # Heard: the President's message no longer says the group will hear it later.
            president = by_id[table.at(claims.offered(table)["1:drawn"][0]).id]
            (hand,) = [m for m in bot.fake.messages(president.id) if "🔴🔴🔴" in m.text]
            assert hand.text.endswith("🗣 Round 1: you told the group: 🔴🔴🔴."), hand.text
            assert not hand.buttons()

    played = await play_planned(
        bot, users, ["F", "L", "L", "L", "L", "L"], group=group, before=hook
    )
    assert seen == ["held", "made"]
    await check_game(bot, played)
    bot.h.assert_no_errors()


async def test_a_claim_prompt_scrolled_away_at_the_end_is_closed_when_pressed(bot: Bot) -> None:
    """Nobody claims: at the end each player's newest message has no live button, and the
    round 1 President's prompt (they were President again in round 6) keeps its buttons
    until pressed: the press is answered, and the message closed then."""
    users = make_users(5)
    played = await play_planned(bot, users, ["F", "L", "L", "L", "L", "L"])
    await check_game(bot, played)
    table = played.table
    kept = []
    for user in users:
        assert not [b for m, b in stale_buttons(bot.fake, user.id, table.gid)]
        kept += [(user, m) for m in bot.fake.messages(user.id) if claim_buttons(m)]
    first = table.at(claims.offered(table)["1:drawn"][0]).id
    assert first in [u.id for u, _ in kept], "the round 1 President's prompt kept its buttons"
    calls = len(bot.fake.calls)
    for user, message in kept:
        press, before = claim_buttons(message)[0], message.text
        data = cb.game_data(table.gid, press.step, cb.CLAIM, press.arg)
        query = await bot.h.press(user, message, data=data)
        await bot.settle()
        assert bot.h.answer(query).text == EN._("The game is over: claims are closed.")
        closed = bot.fake.message(user.id, message.message_id)
        assert closed.buttons() == []
        assert closed.text == f"{before}\n🔒 The game is over: claims are closed."
    edits = [c for c in bot.fake.calls[calls:] if c.method == "editMessageText"]
    assert len(edits) == len(kept), "one edit per pressed prompt, nothing else"
    assert played.table.talk.get("claims", {}) == {}, "no claim was made after the end"
    bot.h.assert_no_errors()
