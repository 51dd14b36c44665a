# The two commands of the README. Both install what is missing first.
#   make bench   the default benchmark run (quick profile) with its report
#   make test    every test: the drivers' own (ctest for g++ and clang++, cargo, go, maven,
#                the D unittests) and the harness's (pytest, ruff)

UV ?= uv
WIREBENCH = $(UV) run wirebench
# Seconds make bench may run, its second stage included: `make bench BUDGET=1500` narrows more.
BUDGET ?= 1080

.PHONY: setup build bench bench-full bench-standard test test-drivers fuzz-build test-fuzz fuzz-long test-harness lint

setup:
	scripts/setup.sh

build: setup
	$(WIREBENCH) build

# The default run (docs/methodology.md, "The default run"): every suite and language,
# the headline cells each suite chooses, a pilot of 6 processes each (rotating over 6
# layout variants of each native driver) and one A/A twin per suite and language, quick
# profile, then a second stage sized from the pilot for the headline ratios wider than
# ±5%, within BUDGET. `make bench-full` is the whole matrix at the quick counts.
bench: build
	$(WIREBENCH) run --headline --aa 1 --repeat 6 --until 0.05 --budget $(BUDGET)

bench-full: build
	$(WIREBENCH) run

bench-standard: build
	$(WIREBENCH) run --profile standard

test: build test-drivers test-fuzz test-harness

test-drivers:
	ctest --test-dir drivers/cpp/build --output-on-failure -j2
	ctest --test-dir drivers/cpp/build-clang --output-on-failure -j2
	$(MAKE) -C drivers/d test
	cargo fmt --manifest-path drivers/rust/Cargo.toml --check
	cargo clippy --release --manifest-path drivers/rust/Cargo.toml --all-targets -- -D warnings
	cargo test --release --manifest-path drivers/rust/Cargo.toml
	test -z "$$(gofmt -l drivers/go)" || { gofmt -l drivers/go; exit 1; }
	go -C drivers/go vet ./...
	go -C drivers/go test ./...
	mvn -q -B -f drivers/java/pom.xml test

# The C++ fuzz targets' ASan+UBSan build of its own (drivers/cpp/fuzz/README.md).
fuzz-build:
	scripts/setup-fuzz.sh
	cmake -S drivers/cpp -B drivers/cpp/build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=Release \
	  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DWIREBENCH_FUZZ=ON \
	  -DWB_FUZZ_SECONDS=$(FUZZ_SECONDS) "-DWB_SUITES=rpc;codec"
	cmake --build drivers/cpp/build-fuzz -j2

# A few seconds of each decoder's fuzzer (docs/robustness.md), every target the drivers'
# registries have, from its seeds, its named regressions and its cached corpus: libFuzzer
# (C++), go test -fuzz, cargo fuzz. Java's run inside mvn test. Longer: FUZZ_SECONDS=60.
FUZZ_SECONDS ?= 2
# The three at once: a fuzzer runs on one core, and Rust's ASan build (minutes from a fresh
# clone) takes the other meanwhile. Each one's status counts.
test-fuzz: fuzz-build
	drivers/rust/fuzz/run.sh $(FUZZ_SECONDS) & rust=$$!; \
	drivers/go/scripts/fuzz.sh $(FUZZ_SECONDS) & go=$$!; \
	drivers/cpp/fuzz/run.sh $(FUZZ_SECONDS); cpp=$$?; \
	wait $$go; go=$$?; wait $$rust; rust=$$?; \
	echo "test-fuzz: cpp $$cpp, go $$go, rust $$rust"; \
	[ $$cpp -eq 0 ] && [ $$go -eq 0 ] && [ $$rust -eq 0 ]

# Every target of every driver for FUZZ_LONG_SECONDS each (hours), with the executions each
# reached in results/fuzz-executions.tsv (scripts/fuzz-long.sh).
FUZZ_LONG_SECONDS ?= 600
fuzz-long: build fuzz-build
	scripts/fuzz-long.sh $(FUZZ_LONG_SECONDS)

# Every driver is built by then: a test of a missing one fails instead of skipping. Two
# pytest workers, a test file each at a time (tests/conftest.py starts the longest first).
test-harness: lint
	WIREBENCH_REQUIRE_DRIVERS=1 $(UV) run pytest -q -n 2 --dist loadfile --no-loadscope-reorder

lint:
	$(UV) run ruff check wirebench tests scripts drivers
	$(UV) run ruff format --check wirebench tests scripts drivers
