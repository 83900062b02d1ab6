# kep-sync as a long-running cron container: `kep-sync serve` on the schedule in /config/kep-sync.yaml.
#   docker build -t kep-sync .
#   docker run -d --name kep-sync -e GITHUB_TOKEN -v "$PWD/config:/config:ro" -v kep-sync-state:/var/lib/kep-sync kep-sync
# The mounted config/kep-sync.yaml needs `publish: github` and `wiki.repo` (or a wiki volume with wiki.dir
# and `publish: files`/`git`); the copy baked in below is the dry-run default. See docs/operations.md, "In a
# container" (the token file, read by uid 10001; logs as JSON lines: KEP_SYNC_LOG_FORMAT below).
# A stop must allow 330 s so a run in progress can finish (serve waits up to 300 s): `docker stop -t 330`,
# `stop_grace_period: 330s` in deploy/compose.yaml, terminationGracePeriodSeconds: 330 for a pod (docs/operations.md).

FROM python:3.11-slim-bookworm AS build
WORKDIR /src
# Build-only tools from their own lock, as the runtime's come from requirements.lock: no version drifts between builds.
COPY requirements-build.lock /tmp/requirements-build.lock
RUN pip install --no-cache-dir --no-deps -r /tmp/requirements-build.lock
COPY pyproject.toml README.md ./
COPY bot ./bot
RUN pip wheel --no-cache-dir --no-build-isolation --no-deps --wheel-dir /dist .

FROM python:3.11-slim-bookworm
# tini is PID 1: it forwards SIGTERM to kep-sync and reaps git children; git serves git: sources
# and publish: git. Not version-pinned on purpose: they follow Debian's security updates.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends tini git ca-certificates \
    && apt-get clean \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*

# Dependencies from the committed lock (pip freeze output), then kep-sync itself without resolving.
COPY requirements.lock /tmp/requirements.lock
RUN pip install --no-cache-dir --no-deps -r /tmp/requirements.lock && rm /tmp/requirements.lock
COPY --from=build /dist /tmp/dist
RUN pip install --no-cache-dir --no-deps /tmp/dist/*.whl && rm -rf /tmp/dist

# The group is made first with its own id: useradd --user-group would pick a system gid (999), while
# USER below, deploy/ and the Kubernetes securityContext all say 10001:10001.
RUN groupadd --system --gid 10001 kep-sync \
    && useradd --system --uid 10001 --gid 10001 --home-dir /var/lib/kep-sync --shell /usr/sbin/nologin kep-sync \
    && mkdir -p /config /var/lib/kep-sync \
    && chown 10001:10001 /var/lib/kep-sync
COPY config/kep-sync.yaml /config/kep-sync.yaml

ENV PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    HOME=/var/lib/kep-sync \
    KEP_SYNC_CONFIG=/config/kep-sync.yaml \
    KEP_SYNC_STATE_DIR=/var/lib/kep-sync \
    KEP_SYNC_CACHE_DIR=/var/lib/kep-sync/cache \
    KEP_SYNC_LOG_FORMAT=json
VOLUME ["/var/lib/kep-sync"]
WORKDIR /var/lib/kep-sync
USER 10001:10001

# Unhealthy when the last run failed or a scheduled run is overdue (see bot/service/health.py).
HEALTHCHECK --interval=5m --timeout=30s --start-period=1m --retries=1 CMD ["kep-sync", "health"]
ENTRYPOINT ["/usr/bin/tini", "--", "kep-sync"]
CMD ["serve"]
