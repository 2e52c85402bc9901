"""Shared pytest configuration: fixtures live in their own modules, registered here."""

pytest_plugins: list[str] = [
    "tests.redis_server",
    "tests.botplay",
]
