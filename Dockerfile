FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DATABASE_URL=sqlite:////data/spades.db

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
# Exit code 2 and one line on stderr when it can't start: docker logs <container> shows the line.
CMD ["python", "-m", "bot"]
