"""The Telegram layer: turns engine events into localized messages and presses into actions."""
