# The two commands of the README. Both install what is missing first.
#   make bench   the default benchmark run (quick profile) with its report
#   make test    every test: the drivers' own (ctest, cargo, go, maven) and the harness's (pytest, ruff)

UV ?= uv
WIREBENCH = $(UV) run wirebench

.PHONY: setup build bench bench-standard test test-drivers test-harness lint

setup:
	scripts/setup.sh

build: setup
	$(WIREBENCH) build

# The default run, quick profile: rpc's reuse cells (every language, library, case, mode
# and compression) and cross-language pairs, every codec cell, the memcpy limits.
# `wirebench run` adds rpc's no-reuse half (twice the rpc time: the JVM's warm-up).
bench: build
	$(WIREBENCH) run --reuse reuse

bench-standard: build
	$(WIREBENCH) run --profile standard

test: build test-drivers test-harness

test-drivers:
	ctest --test-dir drivers/cpp/build --output-on-failure -j2
	cargo fmt --manifest-path drivers/rust/Cargo.toml --check
	cargo clippy --release --manifest-path drivers/rust/Cargo.toml --all-targets -- -D warnings
	cargo test --release --manifest-path drivers/rust/Cargo.toml
	test -z "$$(gofmt -l drivers/go)" || { gofmt -l drivers/go; exit 1; }
	go -C drivers/go vet ./...
	go -C drivers/go test ./...
	mvn -q -B -f drivers/java/pom.xml test

# Every driver is built by then: a test of a missing one fails instead of skipping.
test-harness: lint
	WIREBENCH_REQUIRE_DRIVERS=1 $(UV) run pytest -q

lint:
	$(UV) run ruff check wirebench tests drivers/java/scripts
	$(UV) run ruff format --check wirebench tests drivers/java/scripts
