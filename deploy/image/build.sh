#!/usr/bin/env bash
# Builds the Loupe image without any container registry: a Debian root filesystem made by
# mmdebstrap from Debian's packages (imported as the base), then deploy/Containerfile copies in
# Node 24 (the same npm package ./loupe uses), the sources and production dependencies only.
# Usage: deploy/image/build.sh [TAG]   (needs root, podman and mmdebstrap)
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
TAG="${1:-localhost/loupe:latest}"
BASE="${LOUPE_BASE_IMAGE:-localhost/loupe-base:bookworm}"
SUITE="${DEBIAN_SUITE:-bookworm}"
NODE_VERSION="$(sed -n 's/^NODE_PACKAGE_VERSION="\([^"]*\)".*/\1/p' "$ROOT/loupe")"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
log() { printf '[image] %s\n' "$*" >&2; }

# 1. The base: Debian's essential set plus what Loupe runs beside Node (clamd and freshclam
#    for the optional clamd role, tini as PID 1 to forward signals and reap children).
if ! podman image exists "$BASE"; then
  log "building $BASE from Debian $SUITE packages…"
  mmdebstrap --variant=essential --mode=root \
    --include=ca-certificates,libstdc++6,tini,clamav-daemon,clamav-freshclam \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/*' \
    "$SUITE" "$WORK/rootfs.tar"
  podman import --change 'CMD ["/bin/sh"]' "$WORK/rootfs.tar" "$BASE" >/dev/null
fi

# 2. The context: Node, sources, production dependencies (installed here, with Node 24, so
#    native modules match the image's Node and glibc; no compiler or npm in the image).
log "preparing the context (Node $NODE_VERSION, production dependencies)…"
CTX="$WORK/context"
mkdir -p "$CTX/app"
"$ROOT/loupe" --help >/dev/null # fetches Node 24 into .tools when the system has none
cp -a "$ROOT/.tools/node-$NODE_VERSION/." "$CTX/node"
rm -rf "$CTX/node/include" "$CTX/node/share" "$CTX/node/lib/node_modules" "$CTX/node/bin/npm" "$CTX/node/bin/npx" "$CTX/node/bin/corepack"
cp -a "$ROOT/src" "$ROOT/package.json" "$ROOT/package-lock.json" "$ROOT/LICENSE" "$CTX/app/"
cp "$ROOT/deploy/clamd.conf" "$CTX/clamd.conf"
cp "$ROOT/deploy/image/health.mjs" "$CTX/health.mjs"
(cd "$CTX/app" && PATH="$ROOT/.tools/node-$NODE_VERSION/bin:$PATH" npm_config_nodedir="$ROOT/.tools/node-$NODE_VERSION" \
  npm ci --omit=dev --no-audit --no-fund --loglevel=error)
rm -f "$CTX/app/package-lock.json"
# What nothing loads at run time: source maps, type declarations, the C sources of native
# modules and their intermediate objects, and every mermaid build but the one the panel serves.
NM="$CTX/app/node_modules"
find "$NM" \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete
rm -rf "$NM/better-sqlite3/deps" "$NM/better-sqlite3/src" "$NM/better-sqlite3/build/Release/obj" \
  "$NM/better-sqlite3/build/Release/obj.target" "$NM/better-sqlite3/build/Release/.deps"
find "$NM/mermaid/dist" -type f ! -name mermaid.min.js -delete

log "building $TAG…"
podman build --network=none --build-arg "BASE=$BASE" -f "$ROOT/deploy/Containerfile" -t "$TAG" "$CTX"
log "$TAG: $(podman image inspect --format '{{.Size}}' "$TAG" | numfmt --to=iec) ($BASE: $(podman image inspect --format '{{.Size}}' "$BASE" | numfmt --to=iec))"
