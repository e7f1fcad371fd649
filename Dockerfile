# syntax=docker/dockerfile:1
#
# termsync: the daemon (`termsync watch`, the default command) and every other command.
#
#   docker build -t termsync .
#   docker run --rm -p 9464:9464 -v "$PWD:/repo" --user "$(id -u):$(id -g)" \
#     -e TERMSYNC_BASE_URL -e TERMSYNC_API_KEY termsync
#
# The repository is mounted (or cloned) at /repo and must be writable by the user the container
# runs as: every reconcile takes the lock file /repo/.termsync.lock. README.md, "Run it in a
# container / on Kubernetes", has the rest.
#
# The install steps live in deploy/container/install-runtime.sh, which a test of `npm run test:slow` also
# runs outside Docker (test/deploy/container-install.test.ts): change them there, not here.

# Node 26 is the Active LTS line since 2026-10-28 (maintained until 2029-04); the package itself
# supports Node >= 20.19 (package.json `engines`). Build and runtime share one base image.
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
# Dependencies first: this layer is reused while package-lock.json does not change.
# --ignore-scripts: `prepare` (the build) runs below, once the sources are there.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json README.md ./
COPY bin/ bin/
COPY scripts/ scripts/
COPY schema/ schema/
COPY src/ src/
COPY deploy/container/ deploy/container/
# The example repository: install-runtime.sh validates it once to make the code cache of validate.
COPY config/ config/
COPY glossaries/ glossaries/
# Build, pack as published, install the production dependencies at their locked versions from
# the npm cache `npm ci` just filled, and check that the installed CLI starts.
RUN npm run build \
 && sh deploy/container/install-runtime.sh /opt/termsync

FROM ${NODE_IMAGE} AS runtime
# git (and CA certificates for https remotes) for `watch --git-pull`; tini as PID 1 reaps the
# children git leaves behind when a fetch times out and forwards SIGTERM to termsync. npm is not
# needed at run time: it goes, and with it the dependencies it bundles.
# safe.directory: a repository mounted at /repo is usually owned by another uid than ours, and
# git refuses to work in such a folder unless told to trust it (elsewhere: set GIT_CONFIG_COUNT=1,
# GIT_CONFIG_KEY_0=safe.directory, GIT_CONFIG_VALUE_0=/that/path).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates tini \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --gid 10001 termsync \
 && useradd --uid 10001 --gid termsync --home-dir /home/termsync --create-home --shell /usr/sbin/nologin termsync \
 && git config --system --add safe.directory /repo \
 && mkdir /repo \
 && chown termsync:termsync /repo \
 && rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack
COPY --from=build /opt/termsync /opt/termsync
RUN ln -s /opt/termsync/bin/termsync.js /usr/local/bin/termsync

LABEL org.opencontainers.image.title="termsync" \
      org.opencontainers.image.description="GitOps for terminology: keeps a translation service's glossaries and style rules equal to a git repository" \
      org.opencontainers.image.licenses="Apache-2.0"

# Numeric, so that Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
USER 10001:10001
WORKDIR /repo
EXPOSE 9464
# Slim images have no curl: Node's own fetch asks /healthz. It assumes the default port; with
# another --listen, override the check (docker run --health-cmd, or the probes in Kubernetes).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--", "termsync"]
# The endpoints listen on every interface: a container's loopback is not reachable from outside.
CMD ["watch", "--dir", "/repo", "--listen", "0.0.0.0:9464"]
