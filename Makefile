# omgdb — two commands: `make run` and `make test`. Everything else is a helper of theirs.
#
#   make deps       install the missing Debian 12 packages (apt, non-interactive, idempotent)
#   make daemon     configure and build only the daemon (build/release/omgdb) and what it links
#   make build      configure and build everything of the release preset: the daemon, the
#                   test binaries (build/release)
#   make run        build the daemon only (not the tests), create the default store and a token
#                   if missing, serve MCP over HTTP on 127.0.0.1:41922 (agents that spawn a
#                   process use `omgdb mcp`)
#   make test       build everything and run every test (unit, transcripts, seed session, CLI,
#                   HTTP, TypeScript SDK interop, differential against mingo, crash and restart)
#   make test-asan  the same tests on an AddressSanitizer + UBSan build (build/asan)
#   make test-tsan  the concurrent suites (sessions, worker pool, HTTP sessions, stdio, approvals)
#                   on a ThreadSanitizer build (build/tsan)
#   make fuzz-build the libFuzzer targets with ASan + UBSan (clang, build/fuzz; docs/testing.md)
#   make fuzz       run each target FUZZ_SECONDS seconds (default 60) under nice; FUZZ_TARGETS=…
#   make bench      start-up, get-by-_id throughput and peak RSS (bench/README.md)
#   make bench-http HTTP and stdio calls vs the TypeScript SDK and a bare Beast echo server
#   make package    the Debian package (CPack): build/release/omgdb_<version>_<arch>.deb
#   make image      the container image (Dockerfile), tagged omgdb, with docker
#   make image-test the image built here with no registry (bases from Debian's packages with
#                   mmdebstrap, podman build) and the seed session run inside it; not part of
#                   `make test` (scripts/image_test.sh, docs/service.md)
#   make clean      remove build/

PRESET ?= release
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
BUILD_DIR := build/$(PRESET)
OMGDB := $(BUILD_DIR)/omgdb
DATA_DIR := $(or $(XDG_DATA_HOME),$(HOME)/.local/share)/omgdb
STORE ?= $(DATA_DIR)/default.omgdb
SCOPE ?= read-write
LISTEN ?= 127.0.0.1:41922
TOKEN_FILE ?= $(HOME)/.config/omgdb/http-token
# The HTTP daemon confines stores to its data directory (DATA_DIR) unless the config says
# otherwise; a STORE given elsewhere makes its directory the store root instead.
STORE_ROOT := $(if $(filter file,$(origin STORE)),,$(abspath $(dir $(STORE))))

# Under CI (CI=true, as .ci/run sets it) a compiler warning fails the build.
WERROR_FLAG := $(if $(filter true 1 yes,$(CI)),-DOMGDB_WERROR=ON)

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?=
# The concurrent suites: the session and its worker pool (mcp), HTTP sessions and the stdio
# line reader (transports), approvals and the SQL service (sql).
TSAN_TESTS ?= ^(mcp_unit|transports_unit|sql_unit)$$

.PHONY: deps configure daemon build run test test-asan test-tsan fuzz-build fuzz bench bench-http package image image-test clean

deps:
	@bash scripts/deps.sh

configure: deps
	@if [ ! -f $(BUILD_DIR)/CMakeCache.txt ]; then cmake --preset $(PRESET) $(WERROR_FLAG); fi

# The daemon and the libraries it links: ~250 compile steps of the ~400 (no test, bench or
# fuzz unit). `make run` and `make bench` need nothing else.
daemon: configure
	cmake --build --preset $(PRESET) -j $(JOBS) --target omgdb

build: configure
	cmake --build --preset $(PRESET) -j $(JOBS)

run: daemon
	@mkdir -p "$(dir $(STORE))"
	@if [ ! -d "$(STORE)" ]; then $(OMGDB) create "$(STORE)"; fi
	@if [ -z "$$OMGDB_HTTP_TOKEN" ] && [ ! -s "$(TOKEN_FILE)" ]; then \
	  mkdir -p "$(dir $(TOKEN_FILE))" && (umask 077; $(OMGDB) token new > "$(TOKEN_FILE)" 2>/dev/null) && \
	  echo "omgdb: created a bearer token in $(TOKEN_FILE)" >&2; fi
	@echo "omgdb: default store: $(STORE)" >&2
	@$(if $(STORE_ROOT),echo "omgdb: stores are confined to $(STORE_ROOT) (the directory of STORE)" >&2,true)
	@echo "omgdb: clients send 'Authorization: Bearer <token>'; the token: cat $(TOKEN_FILE) (or \$$OMGDB_HTTP_TOKEN)" >&2
	@echo "omgdb: agents that spawn a process use: $(abspath $(OMGDB)) mcp" >&2
	@OMGDB_HTTP_TOKEN="$${OMGDB_HTTP_TOKEN:-$$(cat "$(TOKEN_FILE)")}" exec $(OMGDB) serve --listen $(LISTEN) --scope $(SCOPE) $(if $(STORE_ROOT),--store-root "$(STORE_ROOT)")

test: build
	ctest --preset $(PRESET) -j $(JOBS)

test-asan:
	$(MAKE) test PRESET=asan

test-tsan: deps
	@if [ ! -f build/tsan/CMakeCache.txt ]; then cmake --preset tsan; fi
	cmake --build --preset tsan -j $(JOBS) --target mcp_tests transports_tests sql_tests
	ctest --preset tsan -j $(JOBS) -R '$(TSAN_TESTS)'

# clang-14 and its libFuzzer/ASan/UBSan runtimes: installed here only, never for `make test`.
fuzz-build:
	@OMGDB_DEPS_EXTRA="clang-14 libclang-rt-14-dev" bash scripts/deps.sh
	@if [ ! -f build/fuzz/CMakeCache.txt ]; then cmake --preset fuzz; fi
	cmake --build --preset fuzz -j $(JOBS) --target fuzz_all

fuzz: fuzz-build
	FUZZ_SECONDS=$(FUZZ_SECONDS) bash fuzz/run.sh build/fuzz $(FUZZ_TARGETS)

bench: daemon
	bash bench/run.sh $(OMGDB)

# HTTP and stdio against the TypeScript SDK and a bare Beast echo server (bench/README.md).
bench-http: daemon
	@OMGDB_DEPS_EXTRA=wrk bash scripts/deps.sh
	cmake --build --preset $(PRESET) -j $(JOBS) --target beast_echo
	python3 bench/http_bench.py $(OMGDB) $(BUILD_DIR)/beast_echo
package: build
	cd $(BUILD_DIR) && cpack -G DEB

image:
	docker build -t omgdb .

# podman, buildah's storage and mmdebstrap: installed here only, never for `make test`.
image-test:
	@OMGDB_DEPS_EXTRA="podman buildah mmdebstrap uidmap netavark runc" bash scripts/deps.sh
	bash scripts/image_test.sh

clean:
	rm -rf build
