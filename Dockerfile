# Minimal image; the deployment issue hardens it (non-root user, health check, compose).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY shbot ./shbot
COPY locales ./locales
RUN pip install --no-cache-dir . && python -c "from shbot.i18n import translator; [translator(c) for c in ('en','ja','fr')]"
ENV SHBOT_DB=/data/shbot.sqlite3
VOLUME /data
CMD ["python", "-m", "shbot", "run"]
