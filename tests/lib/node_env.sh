# Sourced by the Node-based test runners (tests/interop, tests/differential).
#   require_node LABEL              Node.js >= 20 and npm on PATH, else exit 2
#   npm_install_if_stale LABEL WHAT npm ci in the current folder unless node_modules already
#                                   holds exactly the packages of package-lock.json

require_node() {
  local label=$1 tool
  for tool in node npm; do
    if ! command -v "$tool" >/dev/null 2>&1; then
      echo "$label: $tool not found on PATH (Node.js >= 20 is required)" >&2
      exit 2
    fi
  done
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  if (( major < 20 )); then
    echo "$label: Node.js >= 20 is required, found $(node --version)" >&2
    exit 2
  fi
}

# node_modules is current when npm's hidden lockfile lists exactly the packages of
# package-lock.json (the hidden one has no root entry; everything else is identical).
lock_is_current() {
  [[ -f node_modules/.package-lock.json ]] || return 1
  node -e '
    const fs = require("fs");
    const want = JSON.parse(fs.readFileSync("package-lock.json", "utf8")).packages || {};
    const have = JSON.parse(fs.readFileSync("node_modules/.package-lock.json", "utf8")).packages || {};
    delete want[""];
    delete have[""];
    const keys = new Set([...Object.keys(want), ...Object.keys(have)]);
    for (const k of keys) {
      if (JSON.stringify(want[k]) !== JSON.stringify(have[k])) process.exit(1);
    }
  ' 2>/dev/null
}

npm_install_if_stale() {
  if ! lock_is_current; then
    echo "$1: installing $2 (npm ci) in $PWD"
    npm ci --no-audit --no-fund
  fi
}
