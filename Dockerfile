# shbot: the Telegram bot, run as an unprivileged user; its catalogs come inside the wheel.
# Production start (bot + Redis): BOT_TOKEN=... docker compose up -d   (see README, Deploy)

# ---- build: a wheel of shbot, catalogs compiled in (the source tree stays out of the image)
FROM python:3.11-slim-bookworm AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md LICENSE CHANGELOG.md ./
COPY shbot ./shbot
COPY locales ./locales
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# ---- runtime
FROM python:3.11-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    SHBOT_DB=/data/shbot.sqlite3
RUN groupadd --system --gid 10001 shbot \
    && useradd --system --uid 10001 --gid shbot --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin shbot \
    && mkdir -p /data \
    && chown shbot:shbot /data
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels
WORKDIR /app
# The build fails here, not at the first start, if the wheel lacks a language.
RUN python -c "from shbot.i18n import check_catalogs; print('catalogs:', check_catalogs())"
USER 10001:10001
VOLUME ["/data"]
# Webhook mode only (SHBOT_WEBHOOK_URL set); polling needs no inbound port.
EXPOSE 8443
HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
    CMD ["shbot", "health"]
CMD ["shbot", "run"]
