# lcactor: `make run` and `make test` do all the set-up on a fresh Debian 12
# machine (they install what is missing, build, then run).

BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
WERROR     ?= 1
# EAL arguments for the main job: both lcores, no hugepages needed.
EAL_ARGS   ?= -l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_run
RUN_ARGS   ?=

MESON_FLAGS := -Dwerror=$(if $(filter 1,$(WERROR)),true,false)

.PHONY: all deps build asan tsan fuzz soak run test test-unit bench clean

all: build

deps:
	./scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) $(MESON_FLAGS) -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false -Ddebug_envelopes=true

# ThreadSanitizer: Debian's DPDK is not instrumented. tests/lca_tsan_dpdk.h,
# forced into every file, picks DPDK's C11 memory model and intrinsics for
# what is inline (rings, spinlocks), so TSan sees their ordering; see there.
# -Wtsan only warns (TSan does not model fences).
$(TSAN_BUILD)/build.ninja:
	meson setup $(TSAN_BUILD) $(MESON_FLAGS) -Dbuildtype=debugoptimized \
		-Db_sanitize=thread -Db_lundef=false -Ddebug_envelopes=true \
		-Dc_args="-include $(CURDIR)/tests/lca_tsan_dpdk.h -Wno-error=tsan"

# libFuzzer: clang, every part with ASan and coverage (meson.build); only
# the fuzz targets are built here.
$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) $(MESON_FLAGS) -Dfuzz=true

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# The main job: the 8-actor request-response benchmark and its frequency report,
# its JSON record, its JMH-format JSON and the picture of it side by side
# under $(RUN_OUT), one set per run (a UTC time in the name), so that runs
# can be compared. The seed's comparison (affinity against shared), and what
# lcactor adds: affinity at --placement auto beside round-robin, each
# against its own floor (RUN_ARGS may give another --placement: the last wins).
RUN_OUT ?= bench-out
run: build
	@mkdir -p $(RUN_OUT)
	@out=$(RUN_OUT)/reqresp-$$(date -u +%Y%m%dT%H%M%SZ); \
	./$(BUILD)/apps/reqresp/lca-reqresp $(EAL_ARGS) -- --json $$out.json \
		--jmh-json $$out.jmh.json --placement round-robin,auto $(RUN_ARGS) && \
	./scripts/lca-plot $$out.json -o $$out.svg >/dev/null && \
	printf 'JMH JSON: %s\npicture: %s\n' $$out.jmh.json $$out.svg

# Every test: unit and end-to-end tests, then the unit tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer, with the envelope checks
# on (-Ddebug_envelopes: double free, send or write after free). The last
# line counts the tests of both builds, the skipped ones named (.ci/run fails
# on any skip).
# Each half runs whatever failed before it, and the count always ends the
# output; the target fails when anything did.
test: build asan
	@rc=0; \
	meson test -C $(BUILD) --print-errorlogs || rc=1; \
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C $(ASAN_BUILD) --suite unit --print-errorlogs || rc=1; \
	./scripts/ci-no-skips --allow-skips $(BUILD) $(ASAN_BUILD) || rc=1; \
	exit $$rc

# The unit tests under ThreadSanitizer (a few minutes: not in `make test`;
# CI runs it). tests/lca_tsan.c tells TSan what DPDK orders where it cannot
# see; tests/tsan.supp holds the few races inside DPDK's inline ring code.
TSAN_OPTIONS_RUN := halt_on_error=0 history_size=7 second_deadlock_stack=1 \
	suppressions=$(CURDIR)/tests/tsan.supp
tsan: deps $(TSAN_BUILD)/build.ninja
	ninja -C $(TSAN_BUILD)
	TSAN_OPTIONS="$(TSAN_OPTIONS_RUN)" \
		meson test -C $(TSAN_BUILD) --suite unit --print-errorlogs --timeout-multiplier 3

# The remote frame decoder (500,000 runs) and the receive path with its
# state (60 s) under libFuzzer, from seed 1 (a few minutes: not in `make
# test`, whose builds run the same targets under their own seeded mutators;
# CI runs it). FUZZ_ARGS adds libFuzzer flags to both.
FUZZ_ARGS ?=
fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) tests/fuzz_frame tests/fuzz_remote
	meson test -C $(FUZZ_BUILD) --no-rebuild --suite fuzz --print-errorlogs \
		$(if $(FUZZ_ARGS),--test-args '$(FUZZ_ARGS)')

# 60 s of the apps with varied arguments, every run's status and counts
# checked, and a server's RSS sampled throughout (scripts/soak.sh).
SOAK_SECONDS ?= 60
soak: build
	./scripts/soak.sh $(BUILD) $(SOAK_SECONDS)

bench: build
	./$(BUILD)/apps/microbench/lca-microbench $(EAL_ARGS) --

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
