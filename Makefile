# fastcp — build, test, demo, install.
# `make demo` and `make check` install the Debian packages they need first
# (as root), so both work on a fresh Debian 12 machine from a fresh clone.

CC      ?= gcc
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare \
           -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -pthread -Iinclude -Ilib -Ibuild
LDFLAGS += -pthread
PREFIX  ?= /usr/local
VERSION := 0.1.0

# Debian packages: build tools, optional libraries, and what the tests use.
DEB_PKGS := gcc make pkg-config liburing-dev libxxhash-dev libsqlite3-dev \
            libfuse3-dev fuse3 \
            xfsprogs btrfs-progs attr acl rsync e2fsprogs util-linux libxml2-utils strace

LIB_SRC  := $(wildcard lib/*.c)
LIB_OBJ  := $(LIB_SRC:%.c=build/%.o)
BENCH_SRC := $(wildcard src/bench/*.c)
BENCH_OBJ := $(BENCH_SRC:%.c=build/%.o)
UNIT_SRC := $(wildcard tests/unit/*.c)
UNIT_BIN := $(UNIT_SRC:%.c=build/%)
TOOL_SRC := $(wildcard tests/lib/*.c)
TOOL_BIN := $(TOOL_SRC:%.c=build/%)

-include build/config.mk
# faultfs needs libfuse3 (FUSE_LIBS from the probe); without it, not built.
ifeq ($(FUSE_LIBS),)
TOOL_BIN := $(filter-out build/tests/lib/faultfs,$(TOOL_BIN))
endif

.PHONY: all deps demo check test install clean
all: build/fastcp build/fastcp-bench $(UNIT_BIN) $(TOOL_BIN)

# One probe writes build/config.h (HAVE_X symbols) and build/config.mk (LIBS).
build/config.h build/config.mk: mk/configure.sh
	@mkdir -p build
	@sh mk/configure.sh build

build/%.o: %.c build/config.h $(wildcard include/*.h lib/*.h src/bench/*.h tests/lib/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DFCP_VERSION='"$(VERSION)"' -c -o $@ $<

build/libfastcp.a: $(LIB_OBJ)
	$(AR) rcs $@ $^

build/fastcp: build/src/fastcp.o build/libfastcp.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

build/fastcp-bench: $(BENCH_OBJ) build/libfastcp.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LIBS) -lm

build/tests/unit/%: tests/unit/%.c build/libfastcp.a build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< build/libfastcp.a $(LIBS) -lm

build/tests/lib/%: tests/lib/%.c build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBS)

build/tests/lib/faultfs: tests/lib/faultfs.c build/config.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FUSE_CFLAGS) $(LDFLAGS) -o $@ $< $(FUSE_LIBS)

deps:
	@sh mk/deps.sh $(DEB_PKGS)

demo: deps
	@$(MAKE) --no-print-directory all
	@sh scripts/demo.sh

check: deps
	@$(MAKE) --no-print-directory all
	@sh tests/run.sh

test: check

# The tests again under ASan+UBSan, and the stress test under TSan (mk/sanitize.sh).
.PHONY: check-sanitize
check-sanitize: all
	@sh mk/sanitize.sh

install: build/fastcp build/fastcp-bench
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 build/fastcp build/fastcp-bench $(DESTDIR)$(PREFIX)/bin/
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf build
