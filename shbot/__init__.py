"""shbot: play Secret Hitler in a Telegram group chat."""

__version__ = "0.2.0"
