"""The path from a commit to Telegram, as one room.

``commit`` runs one change under the chat's lock and one compare-and-set write, and hands
the stored record to the ``outbox``: one worker per chat that picks the most urgent owed
slot the ``pacer`` (each chat's sliding window), the ``budget`` (step changes before
progress) and the ``turns`` (the token's calls in turn: step changes first, chats in order)
allow, renders it from the newest table (``slots``, the board picture through
``media``, records built once per version in ``tables``) and makes the call through the
``sender``, which maps Telegram's failures. Under all of it, ``limiter`` keeps the process
under Telegram's 30 calls a second and waits out a 429 on a press's answer; ``answers``
answers every press, in the order its player made them.
"""
