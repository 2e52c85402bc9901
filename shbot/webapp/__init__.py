"""The Mini App: the whole table on one screen, served by the bot itself (optional).

Off unless ``SHBOT_WEBAPP_URL`` is set. Then the bot serves a static page (``static/``)
and a small JSON + server-sent-events API from its own process (``server.py``); every
request carries Telegram's signed ``initData`` (``auth.py``), and what a user sees is the
public view of their group's game, plus their own secret panel (``views.py``).
"""


class ListenError(RuntimeError):
    """The Mini App's server cannot listen; the message names the settings to fix."""
