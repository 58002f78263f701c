# Sourced by build.sh: which container engine to use, and whether it can run a container here,
# with the fix when it cannot (see docs/deployment.md, "Containers on this host").

# CONTAINER_ENGINE wins; otherwise podman, else docker when its daemon answers.
pick_engine() {
  if [ -n "${CONTAINER_ENGINE:-}" ]; then echo "$CONTAINER_ENGINE"; return; fi
  if command -v podman >/dev/null; then echo podman; return; fi
  if command -v docker >/dev/null && docker info >/dev/null 2>&1; then echo docker; return; fi
  echo "no container engine: apt-get install podman (or start the docker daemon)" >&2
  return 1
}

# Runs `true` in IMAGE; on failure, names the known causes and their containers.conf settings.
check_engine_runs() {
  local engine="$1" image="$2" out
  if out="$("$engine" run --rm --network=none "$image" true 2>&1)"; then return 0; fi
  echo "[image] $engine cannot run a container here: $out" >&2
  case "$out" in
    *"setrlimit"* | *"rlimit"*)
      echo "[image] the engine raises open-file/process limits above this host's hard limits" \
        "(no CAP_SYS_RESOURCE). In /etc/containers/containers.conf, [containers]:" \
        "default_ulimits = [\"nofile=$(ulimit -Hn):$(ulimit -Hn)\", \"nproc=32768:32768\"]" >&2 ;;&
    *"hybrid mode"*)
      echo "[image] crun refuses cgroups v1+v2 hybrid hosts: apt-get install runc, and in" \
        "/etc/containers/containers.conf, [engine]: runtime = \"runc\"" >&2 ;;&
    *"systemd"* | *"sd-bus"* | *"journal"*)
      echo "[image] no systemd here: in /etc/containers/containers.conf, [engine]:" \
        "cgroup_manager = \"cgroupfs\" and events_logger = \"file\"" >&2 ;;
  esac
  return 1
}
