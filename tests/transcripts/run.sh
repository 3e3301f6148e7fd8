#!/usr/bin/env bash
# Runs every transcript in this folder against the omgdb binary given as $1.
exec python3 "$(dirname "$0")/run.py" "$@"
