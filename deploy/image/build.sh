#!/usr/bin/env bash
# Builds every image of the compose stack without any container registry (`./loupe image build`):
#   localhost/loupe-base:bookworm   Debian's apt variant made by mmdebstrap, imported
#   localhost/loupe:latest          + Node 24 (the npm package ./loupe uses), sources, production deps
#   localhost/loupe-postgres:latest + Debian's postgresql-15, initdb on first start
#   localhost/loupe-clamav:latest   + Debian's clamav-daemon and clamav-freshclam
#   localhost/loupe-caddy:latest    + Debian's caddy (only with --with-proxy)
# Usage: deploy/image/build.sh [--with-proxy] [--rebuild-base]
# Needs root, mmdebstrap, and podman (or docker with a running daemon: CONTAINER_ENGINE=docker).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BASE="${LOUPE_BASE_IMAGE:-localhost/loupe-base:bookworm}"
SUITE="${DEBIAN_SUITE:-bookworm}"
NODE_VERSION="$(sed -n 's/^NODE_PACKAGE_VERSION="\([^"]*\)".*/\1/p' "$ROOT/loupe")"
WITH_PROXY=0 REBUILD_BASE=0
for arg in "$@"; do
  case "$arg" in
    --with-proxy) WITH_PROXY=1 ;;
    --rebuild-base) REBUILD_BASE=1 ;;
    *) echo "usage: $0 [--with-proxy] [--rebuild-base]" >&2; exit 2 ;;
  esac
done
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
log() { printf '[image] %s\n' "$*" >&2; }
# shellcheck source=engine.sh
. "$ROOT/deploy/image/engine.sh"
ENGINE="$(pick_engine)"
log "engine: $ENGINE"
have_image() { "$ENGINE" image inspect "$1" >/dev/null 2>&1; }
size_of() { "$ENGINE" image inspect --format '{{.Size}}' "$1" | numfmt --to=iec; }

# 1. The base: Debian's apt variant (apt stays: the role images install their packages with it)
#    plus tini as PID 1 (forwards signals, reaps children) and poppler-utils (pdftotext, for the
#    Loupe image, which is built without network). No docs, man pages or locales. A base made
#    before it held pdftotext is made again.
base_has_pdftotext() { "$ENGINE" run --rm --network=none "$BASE" test -x /usr/bin/pdftotext >/dev/null 2>&1; }
if [ "$REBUILD_BASE" = 1 ] || ! have_image "$BASE" || ! base_has_pdftotext; then
  command -v mmdebstrap >/dev/null || { log "mmdebstrap is missing: apt-get install mmdebstrap"; exit 1; }
  log "building $BASE from Debian $SUITE packages (mmdebstrap; a few minutes)…"
  mmdebstrap --variant=apt --mode=root --include=ca-certificates,tini,poppler-utils \
    --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
    --customize-hook='rm -rf "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/* "$1"/var/log/*' \
    "$SUITE" "$WORK/rootfs.tar"
  "$ENGINE" import --change 'CMD ["/bin/sh"]' "$WORK/rootfs.tar" "$BASE" >/dev/null
  rm -f "$WORK/rootfs.tar"
fi
check_engine_runs "$ENGINE" "$BASE"

# 2. The Loupe image's context: Node, sources, production dependencies (installed here, with
#    Node 24, so native modules match the image's Node and glibc; no compiler or npm in the image).
log "preparing the Loupe context (Node $NODE_VERSION, production dependencies)…"
CTX="$WORK/context"
mkdir -p "$CTX/app"
"$ROOT/loupe" --help >/dev/null # fetches Node 24 into .tools when the system has none
cp -a "$ROOT/.tools/node-$NODE_VERSION/." "$CTX/node"
rm -rf "$CTX/node/include" "$CTX/node/share" "$CTX/node/lib/node_modules" "$CTX/node/bin/npm" "$CTX/node/bin/npx" "$CTX/node/bin/corepack"
cp -a "$ROOT/src" "$ROOT/package.json" "$ROOT/package-lock.json" "$ROOT/LICENSE" "$CTX/app/"
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
log "building localhost/loupe:latest…"
"$ENGINE" build --network=none --build-arg "BASE=$BASE" -f "$ROOT/deploy/Containerfile" -t localhost/loupe:latest "$CTX"

# 3. The other roles: Debian's packages installed over the same base (its layer is shared).
ROLES="$WORK/roles"
cp -a "$ROOT/deploy/image/roles" "$ROLES"
cp "$ROOT/deploy/clamd-tcp.conf" "$ROLES/"
roles=(postgres clamav)
[ "$WITH_PROXY" = 1 ] && roles+=(caddy)
for role in "${roles[@]}"; do
  log "building localhost/loupe-$role:latest (Debian packages)…"
  "$ENGINE" build --network=host --build-arg "BASE=$BASE" -f "$ROLES/$role.Containerfile" \
    -t "localhost/loupe-$role:latest" "$ROLES"
done

log "sizes (each includes the shared base, $(size_of "$BASE")):"
for image in localhost/loupe:latest "${roles[@]/#/localhost/loupe-}"; do
  image="${image%:latest}:latest"
  log "  $image  $(size_of "$image")"
done
