"""The /rules texts: the complete rules in short sections, written for this bot.

Each section is one catalog message (English msgid, translated at render time), HTML for
Telegram's ``parse_mode=HTML`` (only ``<b>``, ``<i>``, ``<code>``), and short enough to be
sent as a single Telegram message (at most 4,096 characters) in every language.

The rules of Secret Hitler are by Max Temkin, Mike Boxleiter, Tommy Maranges and Mackenzie
Schubert, licensed CC BY-NC-SA 4.0; these texts explain them in our own words.
"""

from __future__ import annotations

from shbot.i18n import N_, Translator

__all__ = [
    "SECTIONS",
    "render_section",
    "rules_intro",
    "section_messages",
    "section_text",
    "section_title",
]

#: Section keys, in reading order.
SECTIONS: tuple[str, ...] = (
    "overview",
    "setup",
    "election",
    "legislative",
    "powers",
    "veto",
    "winning",
)

# Translators: the heading of the /rules menu, above one button per section.
_INTRO = N_("<b>Secret Hitler: the rules</b>\nChoose a section:")

_TITLES: dict[str, str] = {
    # Translators: titles of the /rules sections (button labels, keep them short).
    "overview": N_("Overview"),
    "setup": N_("Set-up"),
    "election": N_("Election"),
    "legislative": N_("Legislative Session"),
    "powers": N_("Presidential Powers"),
    "veto": N_("Veto Power"),
    "winning": N_("How to win"),
}

# Translators: the /rules sections. HTML: only <b>, <i> and <code> may be used, and each
# section must stay under 4,000 characters. Use the game's usual terms in your language.
_TEXTS: dict[str, str] = {
    "overview": N_(
        "<b>Secret Hitler</b> is a game of hidden roles and deduction for 5 to 10 players, "
        "set in the unstable parliament of 1930s Germany.\n"
        "\n"
        "The players are split into two parties. The <b>Liberals</b> are the majority, but "
        "none of them knows who is on which side. The <b>Fascists</b> are fewer, know each "
        "other, and one of them is secretly <b>Hitler</b>.\n"
        "\n"
        "Every round the table elects a government, a <b>President</b> and a "
        "<b>Chancellor</b>, who together enact one policy drawn from a shuffled deck: "
        "Liberal or Fascist. Fascist policies hand the President dangerous powers. The "
        "Liberals want five Liberal policies or Hitler dead; the Fascists want six Fascist "
        "policies, or Hitler as Chancellor once the Fascists are strong enough.\n"
        "\n"
        "<b>Playing in this chat</b>\n"
        "• The game happens in the group: discuss, accuse, defend yourself. Talking is the "
        "heart of the game.\n"
        "• Before joining, open a private chat with the bot and press <i>Start</i>. Your "
        "secret role and everything that only you may see (policies in your hand, "
        "investigation results, peeked policies) are sent to you there, never to the "
        "group.\n"
        "• Every action is a button: nominating, voting, discarding, using a power.\n"
        "• Anyone may claim anything, and lying is allowed. After each Legislative Session "
        "the President and the Chancellor can tell the group what they saw with the 🗣 claim "
        "buttons (so can a President after an investigation or a peek). The bot never says "
        "who lies: it marks with ⚠ a claim that public facts make impossible, and shows what "
        "each player really saw only when the game is over."
    ),
    "setup": N_(
        "A game needs 5 to 10 players. The bot deals the secret roles at random:\n"
        "• 5 players: 3 Liberals, 1 Fascist and Hitler\n"
        "• 6 players: 4 Liberals, 1 Fascist and Hitler\n"
        "• 7 players: 4 Liberals, 2 Fascists and Hitler\n"
        "• 8 players: 5 Liberals, 2 Fascists and Hitler\n"
        "• 9 players: 5 Liberals, 3 Fascists and Hitler\n"
        "• 10 players: 6 Liberals, 3 Fascists and Hitler\n"
        "\n"
        "Besides a role, everyone has a <b>party membership</b>: Liberal for the Liberals, "
        "Fascist for the Fascists <i>and for Hitler</i>.\n"
        "\n"
        "<b>Who knows what</b>\n"
        "Each player learns their own role in their private chat with the bot. In addition:\n"
        "• the Fascists (other than Hitler) learn who the other Fascists are and who Hitler "
        "is;\n"
        "• with 5 or 6 players, Hitler learns who the Fascist is;\n"
        "• with 7 to 10 players, Hitler learns nothing about anyone;\n"
        "• the Liberals learn nothing about anyone.\n"
        "\n"
        "<b>The policy deck</b>\n"
        "17 policy tiles, 6 Liberal and 11 Fascist, are shuffled into the draw pile. "
        "Discarded tiles go face down onto the discard pile.\n"
        "\n"
        "<b>Seats</b>\n"
        "The seating order is the order in which players joined (or a random order, if that "
        "option is chosen). The first Presidential Candidate is picked at random."
    ),
    "election": N_(
        "<b>1. Presidential Candidate</b>\n"
        "At the start of each round the presidency moves on, in seat order, to the next "
        "living player: the new Presidential Candidate.\n"
        "\n"
        "<b>2. Nomination</b>\n"
        "The Presidential Candidate picks a Chancellor Candidate among the other living "
        "players. The members of the last <i>elected</i> government are term-limited and "
        "cannot be picked: the last elected Chancellor and the last elected President. "
        "Exception: when 5 or fewer players are alive, only the last elected Chancellor is "
        "term-limited. Governments that were voted down never make anyone term-limited.\n"
        "\n"
        "<b>3. Vote</b>\n"
        "Every living player, the two candidates included, votes <b>Ja!</b> (yes) or "
        "<b>Nein!</b> (no). Votes stay hidden until everyone has voted; then all of them "
        "are shown together, with each player's vote.\n"
        "\n"
        "<b>4. Result</b>\n"
        "• More than half of the votes are Ja!: the government is <b>elected</b>. The "
        "candidates become President and Chancellor and move on to the Legislative Session. "
        "Once 3 Fascist policies are on the board, electing Hitler as Chancellor wins the "
        "game for the Fascists on the spot; any other Chancellor is then confirmed not "
        "Hitler.\n"
        "• A tie or more Nein! votes: the government is <b>rejected</b>. The Election "
        "Tracker moves up one step and the presidency passes to the next player in seat "
        "order.\n"
        "\n"
        "<b>Chaos</b>\n"
        "When the Election Tracker reaches 3, the country is in chaos: the top policy of "
        "the draw pile is enacted at once and any power it would give is ignored. The "
        "tracker goes back to 0 and all term limits are forgotten for the next nomination. "
        "A chaos policy counts like any other towards winning.\n"
        "\n"
        "The Election Tracker goes back to 0 only when a policy is enacted, not when a "
        "government is elected."
    ),
    "legislative": N_(
        "Once a government is elected, it passes one law.\n"
        "\n"
        "1. The <b>President</b> draws the top 3 policies of the draw pile, sees them in "
        "private, discards one face down and passes the other 2 to the Chancellor.\n"
        "2. The <b>Chancellor</b> sees those 2 policies in private, discards one face down "
        "and enacts the other. It is revealed to everyone and placed on its track.\n"
        "\n"
        "Here, the bot shows the policies in your private chat, with a button for each. "
        "Discarded policies are never shown during the game. The President "
        "and the Chancellor may then tell the group what they saw (the 🗣 claim buttons), "
        "truthfully or not: what they really held is shown only when the game is over.\n"
        "\n"
        "Enacting a policy sets the Election Tracker back to 0. If fewer than 3 tiles are "
        "left in the draw pile afterwards, the discard pile is shuffled together with it to "
        "form a new draw pile; the same check follows chaos and a veto. The sizes of both "
        "piles are always public.\n"
        "\n"
        "If the policy enacted is Fascist and its space on the Fascist track carries a "
        "power, the President must use it before the next round (see <i>Presidential "
        "Powers</i>)."
    ),
    "powers": N_(
        "Some spaces of the Fascist track give the sitting President a power, depending on "
        "the number of players:\n"
        "\n"
        "<b>5–6 players</b>\n"
        "3rd Fascist policy: Policy Peek\n"
        "4th and 5th: Execution\n"
        "\n"
        "<b>7–8 players</b>\n"
        "2nd Fascist policy: Investigate Loyalty\n"
        "3rd: Special Election\n"
        "4th and 5th: Execution\n"
        "\n"
        "<b>9–10 players</b>\n"
        "1st and 2nd Fascist policy: Investigate Loyalty\n"
        "3rd: Special Election\n"
        "4th and 5th: Execution\n"
        "\n"
        "The 5th Fascist policy also unlocks the veto. A power must be used right away, "
        "once; it cannot be kept for later. A policy enacted through chaos gives no power.\n"
        "\n"
        "• <b>Investigate Loyalty</b>: the President chooses another living player who has "
        "not been investigated yet and privately learns that player's party membership, "
        "not their role (Hitler shows as Fascist). Everyone sees who was investigated, "
        "only the President sees the answer.\n"
        "• <b>Special Election</b>: the President chooses any other living player to be "
        "the next Presidential Candidate; term limits do not matter here. Afterwards, "
        "elected or not, the presidency continues in seat order from the President who "
        "called the special election, so the player after that President may be candidate "
        "twice in a row.\n"
        "• <b>Policy Peek</b>: the President privately sees the top 3 policies of the draw "
        "pile, in order, without changing them.\n"
        "• <b>Execution</b>: the President chooses another living player, who is killed. If "
        "it was Hitler, the Liberals win at once. Otherwise nobody learns the dead player's "
        "role or party. The dead no longer vote, cannot be nominated or chosen for a "
        "power, and are skipped for the presidency."
    ),
    "veto": N_(
        "Once 5 Fascist policies are enacted, every new government holds the veto power.\n"
        "\n"
        "After receiving the 2 policies, the Chancellor may propose a veto instead of "
        "enacting one of them. The President then decides:\n"
        "• <b>Agree</b>: both policies are discarded and nothing is enacted. The Election "
        "Tracker moves up one step, which can cause chaos, and the next round starts as "
        "usual.\n"
        "• <b>Refuse</b>: the Chancellor must enact one of the two policies. The veto "
        "cannot be proposed again in the same session.\n"
        "\n"
        "The whole group sees when a veto is proposed, accepted or refused."
    ),
    "winning": N_(
        "The game ends the moment one of these happens.\n"
        "\n"
        "<b>The Liberals win</b> if\n"
        "• 5 Liberal policies are enacted, or\n"
        "• Hitler is executed.\n"
        "\n"
        "<b>The Fascists win</b> if\n"
        "• 6 Fascist policies are enacted, or\n"
        "• Hitler is elected Chancellor when 3 or more Fascist policies are already "
        "enacted.\n"
        "\n"
        "Policies enacted through chaos count as well. At the end, the bot reveals every "
        "player's role.\n"
        "\n"
        "<b>A few tips</b>\n"
        "Liberals: watch the votes and compare what Presidents and Chancellors claim; a "
        "Liberal government can still be dealt only Fascist policies. Fascists: look "
        "trustworthy, sow doubt and keep Hitler safe. Hitler: behave like the most loyal "
        "Liberal at the table."
    ),
}

# Translators: paragraphs added at the end of some /rules sections (each is its own message,
# so that adding one never invalidates a section's translation). Same HTML and length rules.
_ADDED: dict[str, tuple[str, ...]] = {
    "setup": (
        N_(
            "<b>Rebalanced variant</b>\n"
            "A group admin can turn it on in /settings. It changes only games of 6, 7 or 9 "
            "players, to even out the chances of the two parties; roles, powers and "
            "everything else stay the same:\n"
            "• 6 players: the game starts with one Fascist policy from the deck already on "
            "the board, so 16 policies are left to draw (6 Liberal, 10 Fascist). It counts "
            "like any enacted Fascist policy (towards the 3 that let Hitler win as Chancellor, "
            "the 5 that unlock the veto and the 6 that win) but gives no power.\n"
            "• 7 players: one Fascist policy is taken out of the game: 16 policies (6 "
            "Liberal, 10 Fascist).\n"
            "• 9 players: two Fascist policies are taken out of the game: 15 policies (6 "
            "Liberal, 9 Fascist).\n"
            "With 5, 8 or 10 players the option changes nothing."
        ),
    ),
    "legislative": (
        N_(
            "<b>Silence during the session</b>\n"
            "From the moment the President draws the 3 policies until the session is over (a "
            "policy is enacted, or a veto is accepted), the President and the Chancellor must "
            "not communicate in any way: no messages in the group or in private, no hints, no "
            "reactions. Their only exchange goes through the bot's buttons, the veto "
            "included. The others may keep talking, and once the session is over the two "
            "may say whatever they like about what they saw."
        ),
    ),
    "powers": (
        N_(
            "<b>The executed stay silent</b>\n"
            "An executed player is out of the game and must stay silent until it ends: no "
            "more messages in the group, and no hint about their role, their party or "
            "anything they saw or learned."
        ),
    ),
}


def rules_intro(t: Translator) -> str:
    """The heading of the /rules menu (the bot adds one button per section)."""
    return t._(_INTRO)


def section_title(t: Translator, key: str) -> str:
    """The title of the section ``key`` (one of :data:`SECTIONS`)."""
    return t._(_TITLES[key])


def section_messages(key: str) -> tuple[str, ...]:
    """The catalog messages (English msgids) that make up the body of the section ``key``,
    in order: the section's text, then its added paragraphs."""
    return (_TEXTS[key], *_ADDED.get(key, ()))


def section_text(t: Translator, key: str) -> str:
    """The body of the section ``key``, HTML: its messages translated, a blank line apart."""
    return "\n\n".join(t._(message) for message in section_messages(key))


def render_section(t: Translator, key: str) -> str:
    """Title and body as one HTML message, at most 4,096 characters."""
    return f"<b>{section_title(t, key)}</b>\n\n{section_text(t, key)}"
