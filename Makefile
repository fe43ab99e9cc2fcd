# lcactor: `make run` and `make test` do all the set-up on a fresh Debian 12
# machine (they install what is missing, build, then run).

BUILD      ?= build
ASAN_BUILD ?= build-asan
WERROR     ?= 1
# EAL arguments for the main job: both lcores, no hugepages needed.
EAL_ARGS   ?= -l 0-1 --no-huge --no-pci --in-memory --file-prefix lca_run
RUN_ARGS   ?=

MESON_FLAGS := -Dwerror=$(if $(filter 1,$(WERROR)),true,false)

.PHONY: all deps build asan run test test-unit bench clean

all: build

deps:
	./scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD) $(MESON_FLAGS)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) $(MESON_FLAGS) -Dbuildtype=debugoptimized \
		-Db_sanitize=address,undefined -Db_lundef=false -Ddebug_envelopes=true

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

asan: deps $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)

# The main job: the 8-actor request-response benchmark and its frequency report,
# its JSON record and the picture of it side by side under $(RUN_OUT), one
# pair per run (a UTC time in the name), so that runs can be compared.
RUN_OUT ?= bench-out
run: build
	@mkdir -p $(RUN_OUT)
	@out=$(RUN_OUT)/reqresp-$$(date -u +%Y%m%dT%H%M%SZ); \
	./$(BUILD)/apps/reqresp/lca-reqresp $(EAL_ARGS) -- --json $$out.json $(RUN_ARGS) && \
	./scripts/lca-plot $$out.json -o $$out.svg >/dev/null && \
	printf '\nrecord:  %s\npicture: %s\n' $$out.json $$out.svg

# Every test: unit and end-to-end tests, then the unit tests again under
# AddressSanitizer and UndefinedBehaviorSanitizer, with the envelope checks
# on (-Ddebug_envelopes: double free, send or write after free).
test: build asan
	meson test -C $(BUILD) --print-errorlogs
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		meson test -C $(ASAN_BUILD) --suite unit --print-errorlogs

bench: build
	./$(BUILD)/apps/microbench/lca-microbench $(EAL_ARGS) --

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
