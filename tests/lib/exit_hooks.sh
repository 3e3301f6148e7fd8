#!/usr/bin/env bash
# Shared by the start_*.sh scripts (sourced, never run): a free loopback port, and an EXIT trap
# that runs every cleanup hook the sourced scripts registered, so several can be combined.
# Defines omgdb_free_port and omgdb_add_exit_hook (once, however often it is sourced).

omgdb_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}
if ! declare -F omgdb_add_exit_hook >/dev/null; then
  OMGDB_EXIT_HOOKS=()
  omgdb_run_exit_hooks() { local h; for h in "${OMGDB_EXIT_HOOKS[@]}"; do eval "$h" || true; done; }
  # A hook is one self-contained line (values expanded). With OMGDB_EXIT_HOOK_FILE set it is
  # also appended there, for a watcher that cleans up if the caller is killed outright.
  omgdb_add_exit_hook() {
    OMGDB_EXIT_HOOKS+=("$1")
    trap omgdb_run_exit_hooks EXIT
    if [ -n "${OMGDB_EXIT_HOOK_FILE:-}" ]; then printf '%s\n' "$1" >>"$OMGDB_EXIT_HOOK_FILE"; fi
  }
fi
