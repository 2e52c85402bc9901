# shbot: the Telegram bot, run as an unprivileged user; its catalogs come inside the wheel.
# Production start (bot + Redis): BOT_TOKEN=... docker compose up -d   (see README, Deploy)

# The base image is pinned by digest (the same bytes on every build); to move to a newer
# python:3.11-slim-bookworm, put the digest `docker buildx imagetools inspect` prints in
# both FROM lines. Python packages come at the versions of requirements/constraints.txt
# (docs/dependencies.md), the same as the tests ran with.

# ---- build: a wheel of shbot, catalogs compiled in (the source tree stays out of the image)
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b AS build
WORKDIR /src
COPY pyproject.toml setup.py MANIFEST.in README.md LICENSE CHANGELOG.md ./
COPY requirements/constraints.txt ./requirements/constraints.txt
COPY shbot ./shbot
COPY locales ./locales
# PIP_CONSTRAINT also pins the build backend pip installs to build the wheel.
RUN PIP_CONSTRAINT=requirements/constraints.txt \
    pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

# ---- runtime
FROM python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b
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
COPY --from=build /src/requirements/constraints.txt /tmp/constraints.txt
RUN pip install --no-cache-dir -c /tmp/constraints.txt /wheels/*.whl \
    && rm -rf /wheels /tmp/constraints.txt
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
