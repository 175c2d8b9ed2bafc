# fastcp — build, test, demo, install.
# On a fresh Debian 12 machine start with ./fastcp.sh demo (it installs the
# packages of mk/packages first); make alone assumes they are installed.

CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
           -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -pthread -Iinclude -Ilib -Ibuild
LDFLAGS += -pthread
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR ?= $(PREFIX)/share/zsh/vendor-completions
VERSION := 0.1.0

LIB_SRC  := $(wildcard lib/*/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=build/%.o)
BENCH_SRC := $(wildcard src/bench/*.c)
BENCH_OBJ := $(BENCH_SRC:%.c=build/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:%.c=build/%)
TOOL_SRC := $(wildcard tests/lib/*.c)
TOOL_BIN := $(TOOL_SRC:%.c=build/%)

# The probe runs on every make, before anything is built (a few pkg-config
# calls): build/config.h (HAVE_X), build/config.mk (LIBS) and build/config.txt
# change only when what it finds changes, so a library installed since the
# last build is picked up, and an unchanged one rebuilds nothing.
NOPROBE_GOALS := clean uninstall deps
ifneq ($(or $(filter-out $(NOPROBE_GOALS),$(MAKECMDGOALS)),$(if $(MAKECMDGOALS),,all)),)
$(shell NO_URING='$(NO_URING)' sh mk/configure.sh build)
ifneq ($(wildcard build/config.err),)
$(error $(shell cat build/config.err))
endif
-include build/config.mk
endif
# faultfs needs libfuse3 (FUSE_LIBS from the probe); without it, not built.
ifeq ($(FUSE_LIBS),)
TOOL_BIN := $(filter-out build/tests/lib/faultfs,$(TOOL_BIN))
endif

# fastcp-mpi only where the probe found mpicc (MPICC in config.mk): its
# own sources are compiled by the wrapper; libfastcp knows no MPI.
MPI_SRC := $(wildcard src/mpi/*.c)
MPI_OBJ := $(MPI_SRC:%.c=build/%.o)
MPI_BIN := $(if $(MPICC),build/fastcp-mpi)

# The fuzz target of the pattern matchers (libFuzzer, clang): built with
# the rest where clang is installed; tests/e2e/filter_fuzz.sh runs it for
# 10 s in make check, make fuzz for FUZZ_SECONDS.
CLANG ?= $(shell command -v clang 2>/dev/null)
FUZZ_SECONDS ?= 60
FUZZ_BIN := $(if $(CLANG),build/fuzz/filter)

.PHONY: all programs deps demo check test install uninstall clean fuzz soak
all: build/fastcp build/fastcp-bench $(MPI_BIN) $(UNIT_BIN) $(TOOL_BIN) $(FUZZ_BIN)
	@cat build/config.txt

programs: build/fastcp build/fastcp-bench $(MPI_BIN)
	@cat build/config.txt

build/%.o: %.c build/config.h $(wildcard include/*.h lib/*/*.h src/bench/*.h tests/lib/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -DFCP_VERSION='"$(VERSION)"' -c -o $@ $<

build/libfastcp.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

build/fastcp: build/src/fastcp.o build/libfastcp.a build/config.mk
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS)

build/fastcp-bench: $(BENCH_OBJ) build/libfastcp.a build/config.mk
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS) $(FUSE_LIBS) -lm

build/src/mpi/%.o: src/mpi/%.c build/config.h $(wildcard include/*.h src/mpi/*.h)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

build/fastcp-mpi: $(MPI_OBJ) build/libfastcp.a build/config.mk
	$(MPICC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o %.a,$^) $(LIBS)

# compare --source-latency serves the source through libfuse3 (latfs.c).
build/src/bench/latfs.o: CFLAGS += $(FUSE_CFLAGS)
# seekfs serves a disk image through it as a seeking disk would (seekfs.c).
build/src/bench/seekfs.o: CFLAGS += $(FUSE_CFLAGS)

build/tests/unit/%: tests/unit/%.c build/libfastcp.a build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< build/libfastcp.a $(LIBS) -lm

build/tests/lib/%: tests/lib/%.c build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBS)

# tempname names leftovers as the library does: it links it.
build/tests/lib/tempname: tests/lib/tempname.c build/libfastcp.a build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< build/libfastcp.a $(LIBS)

build/tests/lib/faultfs: tests/lib/faultfs.c build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(FUSE_CFLAGS) $(LDFLAGS) -o $@ $< $(FUSE_LIBS)

# A clang without libFuzzer (libclang-rt-14-dev) builds no target, and
# says so; filter_fuzz.sh then tells a skip from a failure.
build/fuzz/filter: tests/fuzz/filter.c lib/base/filter.c lib/base/filter.h lib/base/grow.c lib/base/grow.h
	@mkdir -p $(dir $@)
	$(CLANG) -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -D_GNU_SOURCE -Ilib \
		-o $@ tests/fuzz/filter.c lib/base/filter.c lib/base/grow.c || \
		{ echo "fastcp: clang cannot build the fuzz target (libFuzzer missing?)"; rm -f $@; }

fuzz: build/fuzz/filter
	@mkdir -p build/fuzz/corpus
	build/fuzz/filter -max_total_time=$(FUZZ_SECONDS) -timeout=5 -max_len=512 \
		-artifact_prefix=build/fuzz/ build/fuzz/corpus

# The scenario tester on new seeds for SECONDS (from SEED, default the
# time): seeds/s, commands/s, what was covered, and each failing seed.
# FS=ext4|xfs|btrfs|tmpfs puts the worlds on a new loop filesystem (root).
SECONDS ?= 600
soak: build/fastcp
	@FASTCP=$(CURDIR)/build/fastcp SCENARIO_FS=$(FS) /usr/bin/python3 tests/scenario/scenario.py soak $(SECONDS) $(SEED)

deps:
	@sh fastcp.sh deps

demo: all
	@sh scripts/demo.sh

check: all
	@sh tests/run.sh

test: check

# The floors of lib/ and the rules between them (scripts/layers.py): each
# use that goes up a floor, by an include or by a call, with its file, and
# the uses between floors. make check runs it too (tests/e2e/layers.sh).
.PHONY: check-layers
check-layers: all
	@/usr/bin/python3 scripts/layers.py --graph

# The tests again under ASan+UBSan, and the stress test under TSan (mk/sanitize.sh).
.PHONY: check-sanitize
check-sanitize: all
	@sh mk/sanitize.sh

# DESTDIR and PREFIX as usual (make install PREFIX=/usr DESTDIR=/tmp/stage).
# bash-completion loads a command's file by its name: one for each program.
install: build/fastcp build/fastcp-bench $(MPI_BIN)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 755 build/fastcp build/fastcp-bench $(MPI_BIN) $(DESTDIR)$(BINDIR)/
	install -m 644 man/fastcp.1 man/fastcp-bench.1 $(if $(MPI_BIN),man/fastcp-mpi.1) \
		$(DESTDIR)$(MANDIR)/man1/
	install -D -m 644 completions/fastcp.bash $(DESTDIR)$(BASHCOMPDIR)/fastcp
	install -D -m 644 completions/fastcp.bash $(DESTDIR)$(BASHCOMPDIR)/fastcp-bench
	install -D -m 644 completions/_fastcp $(DESTDIR)$(ZSHCOMPDIR)/_fastcp

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/fastcp $(DESTDIR)$(BINDIR)/fastcp-bench \
	      $(DESTDIR)$(BINDIR)/fastcp-mpi $(DESTDIR)$(MANDIR)/man1/fastcp-mpi.1 \
	      $(DESTDIR)$(MANDIR)/man1/fastcp.1 $(DESTDIR)$(MANDIR)/man1/fastcp-bench.1 \
	      $(DESTDIR)$(BASHCOMPDIR)/fastcp $(DESTDIR)$(BASHCOMPDIR)/fastcp-bench \
	      $(DESTDIR)$(ZSHCOMPDIR)/_fastcp

clean:
	rm -rf build
