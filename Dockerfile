FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    DATABASE_URL=sqlite:////data/spades.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 spades \
    && mkdir -p /data && chown spades:spades /data

USER spades
VOLUME ["/data"]
CMD ["python", "-m", "bot"]
