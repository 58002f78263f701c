#!/usr/bin/env bash
# Smoke test of the image (after build.sh): every role as its own container — clamd, files,
# intel API, two intel workers — on the host network with the host's PostgreSQL; checks each
# one's health, an EICAR upload, a thumbnail, doctor inside the image, a worker killed, and a
# clean stop. Usage: deploy/image/smoke.sh [postgres://…/db]  (an empty database; default: a
# fresh one on 127.0.0.1). Takes about a minute.
set -euo pipefail
IMAGE="${LOUPE_IMAGE:-localhost/loupe:latest}"
PG_ADMIN="${PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/test}"
DB="loupe_smoke_$$"
free_port() { python3 -c "import socket; s=socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])"; }
FILES_PORT=$(free_port) INTEL_PORT=$(free_port) CLAMD_PORT=$(free_port)
P="loupe-smoke-$$"
log() { printf '[smoke] %s\n' "$*" >&2; }
cleanup() {
  podman rm --ignore -f -t 10 "$P-files" "$P-intel" "$P-worker1" "$P-worker2" "$P-clamd" >/dev/null 2>&1 || true
  podman volume rm -f "$P-clamav" >/dev/null 2>&1 || true
  psql -q "$PG_ADMIN" -c "drop database if exists $DB with (force)" >/dev/null 2>&1 || true
}
trap cleanup EXIT
psql -q "$PG_ADMIN" -c "create database $DB"
DATABASE_URL="${1:-${PG_ADMIN%/*}/$DB}"
COMMON=(--network host --read-only --tmpfs /tmp --cap-drop ALL --security-opt no-new-privileges
  -e "DATABASE_URL=$DATABASE_URL" -e HOST=127.0.0.1 -e "FILES_PORT=$FILES_PORT" -e "INTEL_PORT=$INTEL_PORT"
  -e "CLAMD_HOST=127.0.0.1" -e "CLAMD_PORT=$CLAMD_PORT" -e DATA_DIR=/tmp/data -e INTEL_CONNECTORS=hashlookup)

conf="$(mktemp)"; sed "s/^TCPSocket .*/TCPSocket $CLAMD_PORT/; s/^TCPAddr .*/TCPAddr 127.0.0.1/" "$(dirname "$0")/../clamd-tcp.conf" >"$conf"
chmod 644 "$conf"
podman run -d --name "$P-clamd" "${COMMON[@]}" --user clamav -v "$P-clamav:/var/lib/clamav" \
  -v "$conf:/etc/loupe/clamd-tcp.conf:ro" --entrypoint /usr/bin/tini "$IMAGE" -- sh -c \
  'cp /opt/loupe/src/files/clamd/signatures/* /var/lib/clamav/; exec clamd --foreground=true --config-file=/etc/loupe/clamd-tcp.conf' >/dev/null
podman run -d --name "$P-intel" "${COMMON[@]}" "$IMAGE" intel serve --no-worker >/dev/null
podman run -d --name "$P-files" "${COMMON[@]}" "$IMAGE" files serve >/dev/null

wait_healthy() { # container, health.mjs arguments…
  local c="$1"; shift
  for _ in $(seq 120); do
    podman exec "$c" node /opt/health.mjs "$@" 2>/dev/null && return 0
    sleep 1
  done
  podman logs "$c" 2>&1 | tail -20 >&2; log "$c never became healthy"; return 1
}
started=$SECONDS
wait_healthy "$P-clamd" clamd "$CLAMD_PORT"
wait_healthy "$P-intel" "http://127.0.0.1:$INTEL_PORT/"
wait_healthy "$P-files" "http://127.0.0.1:$FILES_PORT/"
log "clamd, intel and files healthy after $((SECONDS - started)) s"
for n in 1 2; do podman run -d --name "$P-worker$n" "${COMMON[@]}" "$IMAGE" intel worker >/dev/null; done

work="$(mktemp -d)"
printf '%s%s' 'X5O!P%@AP[4\PZX54(P^)7CC)7}$' 'EICAR-STANDARD-ANTIVIRUS-TEST-FILE!$H+H*' >"$work/eicar.com"
curl -sf -F "file=@$work/eicar.com" "http://127.0.0.1:$FILES_PORT/analyzer/antivirus" | tee "$work/av.json" | grep -q '"infected":true'
log "EICAR detected: $(cat "$work/av.json" | head -c 200)"
podman exec "$P-files" node -e 'const z=require("node:zlib"),c=(t,d)=>{const b=Buffer.alloc(8+d.length+4);b.writeUInt32BE(d.length);b.write(t,4);d.copy(b,8);b.writeUInt32BE(z.crc32(Buffer.concat([Buffer.from(t),d])),8+d.length);return b};const h=Buffer.alloc(13);h.writeUInt32BE(64);h.writeUInt32BE(48,4);h[8]=8;h[9]=2;const raw=Buffer.alloc(48*(1+64*3),0);process.stdout.write(Buffer.concat([Buffer.from([137,80,78,71,13,10,26,10]),c("IHDR",h),c("IDAT",z.deflateSync(raw)),c("IEND",Buffer.alloc(0))]))' >"$work/in.png"
code=$(curl -s -w "%{http_code}" -F "file=@$work/in.png" "http://127.0.0.1:$FILES_PORT/converter/thumbnail?width=32&height=32" -o "$work/thumb.png")
[ "$code" = 200 ] || { log "thumbnail answered $code: $(head -c 300 "$work/thumb.png")"; exit 1; }
head -c 8 "$work/thumb.png" | od -An -c | grep -q P && log "thumbnail: $(stat -c %s "$work/thumb.png") bytes of PNG"

podman exec "$P-intel" node /opt/loupe/src/cli/main.ts doctor || true
podman kill "$P-worker1" >/dev/null
sleep 2
podman exec "$P-worker2" true && log "worker 2 still running after worker 1 was killed"
podman exec "$P-intel" node /opt/loupe/src/cli/main.ts doctor --json | grep -A2 '"check": "queue"'

for c in worker2 files intel clamd; do
  t0=$SECONDS
  podman stop -t 30 "$P-$c" >/dev/null
  log "$c stopped in $((SECONDS - t0)) s, exit code $(podman inspect -f '{{.State.ExitCode}}' "$P-$c")"
done
log "smoke passed in $SECONDS s"
