# omgdb — two commands: `make run` and `make test`. Everything else is a helper of theirs.
#
#   make deps       install the missing Debian 12 packages (apt, non-interactive, idempotent)
#   make build      configure and build the release preset (build/release)
#   make run        build, create the default store if missing, serve MCP on stdio
#   make test       build and run every test (unit, transcripts, seed session, CLI, interop)
#   make test-asan  the same tests on an AddressSanitizer + UBSan build (build/asan)
#   make bench      start-up, get-by-_id throughput and peak RSS (bench/README.md)
#   make clean      remove build/

PRESET ?= release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_DIR := build/$(PRESET)
OMGDB := $(BUILD_DIR)/omgdb
STORE ?= $(HOME)/.local/share/omgdb/default.omgdb
SCOPE ?= read-write

.PHONY: deps configure build run test test-asan bench clean

deps:
	@bash scripts/deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/CMakeCache.txt ]; then cmake --preset $(PRESET); fi

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

run: build
	@mkdir -p "$(dir $(STORE))"
	@if [ ! -d "$(STORE)" ]; then $(OMGDB) create "$(STORE)"; fi
	@echo "omgdb: serving MCP on stdio at scope $(SCOPE); default store: $(STORE)" >&2
	@echo "omgdb: type JSON-RPC lines, e.g." >&2
	@echo '  {"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"inspect","arguments":{"path":"$(STORE)"}}}' >&2
	@echo "omgdb: end with Ctrl-D. Agents spawn: $(abspath $(OMGDB)) mcp" >&2
	@exec $(OMGDB) mcp --scope $(SCOPE)

test: build
	ctest --preset $(PRESET) -j $(JOBS)

test-asan:
	$(MAKE) test PRESET=asan

bench: build
	bash bench/run.sh $(OMGDB)

clean:
	rm -rf build
