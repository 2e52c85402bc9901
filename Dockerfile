# shbot: the Telegram bot, run as an unprivileged user with its catalogs compiled.
# Production start (bot + Redis): BOT_TOKEN=... docker compose up -d   (see README, Deploy)

# ---- build: a wheel of shbot (the source tree stays out of the final image)
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY shbot ./shbot
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# ---- runtime
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SHBOT_LOCALES=/app/locales \
    SHBOT_DB=/data/shbot.sqlite3
RUN groupadd --system --gid 10001 shbot \
    && useradd --system --uid 10001 --gid shbot --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin shbot \
    && mkdir -p /data \
    && chown shbot:shbot /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
WORKDIR /app
COPY locales ./locales
# Compile every catalog now (.mo beside each .po, stamped with its time): the bot then loads
# them as they are, from a directory its user cannot write. The .mo files are written
# owner-only (0600), so make them readable to the bot's user.
RUN python -c "from shbot.i18n import LANGUAGES, locales_dir, translator; \
[translator(code) for code in LANGUAGES]; \
missing = [c for c in LANGUAGES if not (locales_dir() / c / 'LC_MESSAGES' / 'shbot.mo').is_file()]; \
assert not missing, f'catalogs not compiled: {missing}'" \
    && chmod -R a+rX locales
USER 10001:10001
VOLUME ["/data"]
# Webhook mode only (SHBOT_WEBHOOK_URL set); polling needs no inbound port.
EXPOSE 8443
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
    CMD ["shbot", "health"]
CMD ["shbot", "run"]
