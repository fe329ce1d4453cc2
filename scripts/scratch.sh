# Sourced by the measuring scripts that start their own coordinator and workers:
#
#   source "$root/scripts/scratch.sh"
#   scratch_dir NAME     # $dir: a fresh temporary directory bgfarm-NAME.XXXXXX
#   port=$(free_port)    # a free port on 127.0.0.1
#   ... & pids+=($!)     # processes to kill on exit
#
# On exit (normal, error, Ctrl-C or SIGTERM) every process in `pids` is killed and
# waited for, and the directory is removed.
pids=()
dir=

scratch_cleanup() {
    ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null
    wait 2>/dev/null || true
    [[ -n $dir ]] && rm -rf "$dir"
}

scratch_dir() {
    dir=$(mktemp -d "${TMPDIR:-/tmp}/bgfarm-$1.XXXXXX")
    trap scratch_cleanup EXIT INT TERM
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
