#!/bin/sh
# clamd needs at least one signature database to start. Until freshclam has brought the real
# ones, files mounted at /seed (e.g. Loupe's test signatures: EICAR and a few test patterns) are
# copied in; `./loupe doctor` warns while only those are loaded.
set -eu
db=/var/lib/clamav
if ! ls "$db"/*.cvd "$db"/*.cld "$db"/*.ndb "$db"/*.hdb >/dev/null 2>&1; then
  if ls /seed/* >/dev/null 2>&1; then
    cp /seed/* "$db"/
    echo "no signatures yet: seeded $db from /seed ($(ls /seed | tr '\n' ' '))" >&2
  else
    echo "no signatures in $db yet: waiting for freshclam" >&2
    while ! ls "$db"/*.cvd "$db"/*.cld >/dev/null 2>&1; do sleep 10; done
  fi
fi
exec clamd --foreground=true --config-file=/etc/loupe/clamd-tcp.conf "$@"
