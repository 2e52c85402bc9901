"""Every word the Mini App page shows, from the catalogs (the page itself holds none).

The API sends these with each view, in the viewer's language; errors come with their own
text. The page's static files carry only symbols, so no user-visible string lives outside
the gettext catalogs.
"""

from __future__ import annotations

from shbot.i18n import Translator


def labels(t: Translator) -> dict[str, str]:
    return {
        "title": t._("📋 Table"),
        "seats": t._("Seats"),
        "now": t._("Round in progress"),
        "record": t._("The whole record"),
        "secret": t._("🤫 Your secret panel"),
        "secret_note": t._("Only you see this panel."),
        "watching": t._("You are watching this game: you do not play in it."),
        "lobby": t._("The game has not started yet. Players in the lobby:"),
        "cancelled": t._("This game was cancelled."),
        "legend": t._(
            "⭐ President · ◆ Chancellor · ☆ ◇ candidates · ✅ confirmed not Hitler · "
            "💀 dead · 🔒 term-limited · 🗳 voted · ⏳ not yet"
        ),
        "you": t._("you"),
        "live": t._("Live"),
        "offline": t._("Reconnecting…"),
        "empty": t._("Nothing has happened yet."),
        "act": t._("🎮 Your move"),
        "back": t._("Back"),
        "failed": t._("Your press did not reach the bot: try again."),
    }


def error(t: Translator, reason: str) -> str:
    """Why the page shows nothing: what the viewer can do about it."""
    if reason in ("expired", "future"):
        return t._("This table link has expired: open it again from the chat.")
    if reason == "forbidden":
        return t._("Only the members of this group can see its table.")
    if reason == "busy":
        return t._("Too many tables are open right now: the page tries again in a moment.")
    if reason == "no_game":
        return t._("No game to show: open the table from a game's board or from your role message.")
    return t._("Open this table from Telegram: the page could not check who you are.")
