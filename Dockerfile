FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DATABASE_URL=sqlite:////data/spades.db \
    METRICS_PORT=9100

WORKDIR /app
COPY pyproject.toml README.md LICENSE ./
COPY bot ./bot
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 spades \
    && mkdir -p /data && chown spades:spades /data

USER spades
# The bot's working folder is the volume it owns: a relative DATABASE_URL (sqlite:///spades.db, as
# in .env.example) lands there too, never in /app, which belongs to root.
WORKDIR /data
VOLUME ["/data"]
# /metrics for Prometheus and /healthz, on METRICS_PORT (docs/operations.md). The health check asks
# /healthz: 200 once the store is open and the gateway ready, else 503 (unhealthy after 3 in a row).
# Standard library only, no curl in the image; with METRICS_PORT set empty, nothing is checked.
EXPOSE 9100
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request as u; p = os.environ.get('METRICS_PORT'); p and u.urlopen(f'http://127.0.0.1:{p}/healthz', timeout=4)"]
# Exit code 2 and one line on stderr when it can't start: docker logs <container> shows the line.
CMD ["python", "-m", "bot"]
