# libmodels: one non-recursive Makefile (paths and tools in config.mk).
#
#   make            library, `models` command and examples under $(B)/
#   make check      installs missing Debian packages, builds, runs every test
#   make demo       installs missing Debian packages, builds, runs `models demo`
#   make labs       the course labs of docs/course/: draws every figure, reruns every lab's and
#                   solution's commands and checks their shown output (tools/labs.sh)
#   make bench      throughput benchmarks (never part of check)
#   make asan       the tests under address and undefined-behaviour sanitizers (build-asan/)
#   make fuzz       libFuzzer targets for every input, FUZZ_SECONDS each (build-fuzz/); a long
#                   campaign: tools/fuzz-campaign.sh
#   make check-determinism  the same seed gives the same JSON from -O0 and -O2 builds, gcc and
#                   clang (when installed), in build-det-*/
#   make man        the man pages, generated into $(B)/man/ (models(1) and one per command from
#                   the command's --help texts, libmodels(3) from the public headers)
#   make check-slurm  `models sweep --slurm` through a one-node Slurm started for the test
#                   (installs slurm-wlm; not part of check)
#   make install    PREFIX=... headers, libraries, models.pc, the command, the presets, the man
#                   pages and the bash completion
#   make deps       only the Debian packages
include config.mk

B        ?= build
PKGS     := glib-2.0 gio-2.0 gio-unix-2.0 sqlite3
SONAME   := libmodels.so.0
CFLAGS   ?= -O2 -g
WARN     := -std=c11 -Wall -Wextra -Werror -Wshadow -Wundef -Wwrite-strings \
            -Wmissing-prototypes -Wstrict-prototypes
CPPFLAGS += -Iinclude -Isrc -D_DEFAULT_SOURCE
SAN      := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

.DEFAULT_GOAL := all
.PHONY: all deps check demo bench asan fuzz install man clean check-run demo-run bench-run fuzz-run \
        fuzz-build check-determinism labs labs-run check-slurm check-slurm-run

# Entry points that must work on a fresh machine: packages first, then a second make that can ask
# pkg-config (this one may have been started before the packages existed).
deps:
	@tools/deps.sh
check: deps
	@$(MAKE) --no-print-directory B=$(B) check-run
demo: deps
	@tools/deps.sh --plot || echo "deps: no gnuplot; the demo writes its plot's data and script only"
	@$(MAKE) --no-print-directory B=$(B) demo-run
bench: deps
	@$(MAKE) --no-print-directory B=$(B) bench-run
labs: deps
	@$(MAKE) --no-print-directory B=$(B) labs-run
asan: deps
	@$(MAKE) --no-print-directory B=build-asan CFLAGS="-O1 -g $(SAN)" LDFLAGS="$(SAN)" check-run
# clang, unlike gcc, counts the { NULL } that ends a table as missing initializers. Every
# sanitizer report ends the run, as under `make asan`, so that libFuzzer counts it as a finding.
FUZZ_WNO := -Wno-missing-field-initializers
FUZZ_SAN := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all
fuzz: deps
	@tools/deps.sh clang libclang-rt-dev
	@$(MAKE) --no-print-directory B=build-fuzz CC=$(FUZZ_CC) \
	  CFLAGS="-O1 -g $(FUZZ_SAN) $(FUZZ_WNO)" LDFLAGS="-fsanitize=address,undefined" fuzz-run
check-slurm: deps
	@tools/deps.sh --slurm
	@$(MAKE) --no-print-directory B=$(B) check-slurm-run
clean:
	rm -rf build build-asan build-fuzz

HAVE_PKGS := $(shell $(PKG_CONFIG) --exists $(PKGS) && echo yes)
ifneq ($(HAVE_PKGS),yes)
all check-run demo-run bench-run labs-run fuzz-run install man check-slurm-run:
	$(error GLib development files not found by $(PKG_CONFIG); run `make deps` first)
else

PKG_CF   := $(shell $(PKG_CONFIG) --cflags $(PKGS))
PKG_LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS))
ALL_CF    = $(WARN) $(CFLAGS) $(CPPFLAGS) $(PKG_CF)

ALGO_SRC := $(sort $(wildcard src/algos/cpu/*.c))
LIB_SRC  := $(sort $(wildcard src/core/*.c src/traces/*.c src/models/*.c src/models/*/*.c src/simt/*.c src/algos/*.c \
              src/algos/simt/*.c src/experiments/*.c src/annotate/*.c)) $(ALGO_SRC)
LIB_OBJ  := $(LIB_SRC:%.c=$(B)/%.o) $(ALGO_SRC:%.c=$(B)/native/%.o) $(B)/gen/machines-data.o
CLI_OBJ  := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard src/cli/*.c)))
# DWARF line tables (elfutils' libdw) for `models annotate`: an archive of its own, so that
# libmodels itself needs only GLib (docs/howto/annotate.md).
DWARF_OBJ := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard src/dwarf/*.c)))
DW_LIBS  := $(shell $(PKG_CONFIG) --libs libdw 2>/dev/null || echo -ldw -lelf)
EX_BIN   := $(patsubst examples/%.c,$(B)/examples/%,$(wildcard examples/*.c))
BENCH_BIN := $(patsubst bench/%.c,$(B)/bench/%,$(wildcard bench/*.c))
TEST_BIN := $(patsubst tests/%.c,$(B)/tests/%,$(sort $(wildcard tests/test-*.c)))
TEST_SUP := $(patsubst %.c,$(B)/%.o,$(sort $(wildcard tests/helpers.c tests/picky.c tests/ref/*.c)))
FUZZ_BIN := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(sort $(wildcard tests/fuzz/fuzz-*.c)))
REPLAY_BIN := $(patsubst tests/fuzz/%.c,$(B)/tests/replay-%,$(sort $(wildcard tests/fuzz/fuzz-*.c)))

MAN_PAGES := $(B)/man/man1/models.1 $(B)/man/man3/libmodels.3

all: $(B)/libmodels.a $(B)/libmodels.so $(B)/bin/models $(EX_BIN) $(MAN_PAGES)
man: $(MAN_PAGES)

# The library: position-independent, only MDL_API symbols exported from the .so.
$(B)/%.o: %.c Makefile config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CF) -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@
# The native twin of every CPU algorithm: the same source with the instrumentation compiled away.
$(B)/native/%.o: %.c Makefile config.mk
	@mkdir -p $(@D)
	$(CC) $(ALL_CF) -DMDL_NATIVE -fPIC -fvisibility=hidden -MMD -MP -c $< -o $@
# The machine presets, compiled in so that nothing needs installing.
$(B)/gen/machines-data.c: data/machines.ini
	@mkdir -p $(@D)
	{ echo '/* generated from data/machines.ini */'; \
	  echo 'extern const char mdl_machines_ini[];'; \
	  echo 'const char mdl_machines_ini[] = {'; \
	  od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; echo '0x00 };'; } > $@
$(B)/gen/machines-data.o: $(B)/gen/machines-data.c
	$(CC) $(CFLAGS) -fPIC -c $< -o $@

$(B)/libmodels.a: $(LIB_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(B)/libmodels.so: $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $@ $^ $(PKG_LIBS) -lm

$(B)/libmodels-dwarf.a: $(DWARF_OBJ)
	@rm -f $@
	$(AR) rcs $@ $^
$(B)/bin/models: $(CLI_OBJ) $(B)/libmodels-dwarf.a $(B)/libmodels.a
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(DW_LIBS) $(PKG_LIBS) -lm
# The man pages are generated, never edited (docs/contributing.md): the command writes its own from
# its --help texts, tools/man-api.c writes the API's from the headers' doc comments.
$(B)/man/man1/models.1: $(B)/bin/models
	@rm -rf $(@D)
	$(B)/bin/models help --man $(@D)
$(B)/man/man3/libmodels.3: $(B)/tools/man-api $(wildcard include/models/*.h)
	@mkdir -p $(@D)
	$(B)/tools/man-api $@ $(sort $(wildcard include/models/*.h))
$(B)/tools/%: tools/%.c $(B)/libmodels.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CF) $(LDFLAGS) -MMD -MP -o $@ $< $(B)/libmodels.a $(PKG_LIBS) -lm

$(B)/examples/%: examples/%.c $(B)/libmodels.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CF) $(LDFLAGS) -MMD -MP -o $@ $< $(B)/libmodels.a $(PKG_LIBS) -lm
$(B)/bench/%: bench/%.c $(B)/libmodels.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CF) -Isrc $(LDFLAGS) -MMD -MP -o $@ $< $(B)/libmodels.a $(PKG_LIBS) -lm

# Tests see the private headers under src/ and link the static library.
TEST_CF   = $(ALL_CF) -Isrc -Itests $(shell $(PKG_CONFIG) --cflags cmocka)
TEST_LIBS = $(shell $(PKG_CONFIG) --libs cmocka) $(PKG_LIBS) -lm
$(B)/tests/%.o: tests/%.c Makefile config.mk
	@mkdir -p $(@D)
	$(CC) $(TEST_CF) -MMD -MP -c $< -o $@
$(B)/tests/test-%: $(B)/tests/test-%.o $(TEST_SUP) $(B)/libmodels.a
	$(CC) $(LDFLAGS) -o $@ $^ $(TEST_LIBS)

# Each fuzz target again, without libFuzzer: a cmocka test replaying its seeds and every input
# of tests/data/regress/ (tests/fuzz/replay.c); under `make asan` with the sanitizers.
$(B)/tests/replay-%: tests/fuzz/%.c tests/fuzz/replay.c tests/fuzz/common.c tests/fuzz/common.h \
                     $(B)/libmodels.a
	@mkdir -p $(@D)
	$(CC) $(TEST_CF) -DFUZZ_TARGET='"$*"' $(LDFLAGS) -o $@ $< tests/fuzz/replay.c \
	  tests/fuzz/common.c $(B)/libmodels.a $(TEST_LIBS)

check-run: all $(TEST_BIN) $(REPLAY_BIN)
	@MODELS_BIN=$(B)/bin/models B=$(B) CC="$(CC)" CFLAGS="$(CFLAGS)" LDFLAGS="$(LDFLAGS)" \
	  tools/run-tests.sh $(TEST_BIN) $(REPLAY_BIN) tests/install-check.sh tests/determinism.sh

# Determinism across builds: one `models` per compiler and optimization level, each in its own
# build directory, then tests/determinism.sh compares their JSON (and two runs of each). clang
# gets FUZZ_WNO, as the fuzz build does: it warns on the tables' { NULL } end rows.
DET_CCS := gcc $(shell command -v clang >/dev/null 2>&1 && echo clang)
check-determinism: deps
	@set -e; bins=""; for cc in $(DET_CCS); do for opt in -O0 -O2; do \
	  b=build-det-$$cc$$opt; wno=""; [ $$cc = clang ] && wno="$(FUZZ_WNO)"; \
	  $(MAKE) --no-print-directory B=$$b CC=$$cc CFLAGS="$$opt -g $$wno" $$b/bin/models; \
	  bins="$$bins $$b/bin/models"; done; done; tests/determinism.sh $$bins

check-slurm-run: $(B)/bin/models
	MODELS_BIN=$(B)/bin/models tools/check-slurm.sh

demo-run: $(B)/bin/models
	$(B)/bin/models demo

labs-run: $(B)/bin/models $(B)/tests/test-docs
	@B=$(B) tools/labs.sh

bench-run: $(BENCH_BIN)
	@for b in $(BENCH_BIN); do echo "== $$b"; $$b || exit 1; done

# libFuzzer: one target per input (docs/reliability.md); what they find goes into
# tests/data/regress/ by hand. FUZZ_LIBS lets tools/fuzz-campaign.sh link GLib statically.
FUZZ_LIBS ?= $(PKG_LIBS)
$(B)/fuzz/%: tests/fuzz/%.c tests/fuzz/common.c tests/fuzz/common.h $(B)/libmodels.a
	@mkdir -p $(@D)
	$(CC) $(ALL_CF) -Isrc -fsanitize=fuzzer $(LDFLAGS) -o $@ $< tests/fuzz/common.c \
	  $(B)/libmodels.a $(FUZZ_LIBS) -lm
fuzz-build: $(FUZZ_BIN)
fuzz-run: $(FUZZ_BIN)
	@for f in $(FUZZ_BIN); do \
	  name=$$(basename $$f); corpus=$(B)/fuzz/corpus-$$name; mkdir -p $$corpus; \
	  echo "== $$name ($(FUZZ_SECONDS) s, seeds from tests/data)"; \
	  dict=; [ ! -f tests/fuzz/$$name.dict ] || dict=-dict=tests/fuzz/$$name.dict; \
	  $$f -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -timeout=25 \
	    -artifact_prefix=$(B)/fuzz/$$name- $$dict $$corpus tests/data/seeds-$$name \
	    tests/data/regress || exit 1; done

# Installation: headers, both libraries, the command, the presets, a pkg-config file, the man
# pages and the bash completion (loaded by bash-completion from its directory).
install: all
	install -d $(DESTDIR)$(INCLUDEDIR)/models $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(BINDIR) \
	  $(DESTDIR)$(DATADIR)/models $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3 \
	  $(DESTDIR)$(BASHCOMPDIR)
	install -m 644 $(B)/man/man1/*.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(B)/man/man3/libmodels.3 $(DESTDIR)$(MANDIR)/man3/
	install -m 644 data/models.bash $(DESTDIR)$(BASHCOMPDIR)/models
	install -m 644 include/models/*.h $(DESTDIR)$(INCLUDEDIR)/models/
	install -m 644 $(B)/libmodels.a $(B)/libmodels-dwarf.a $(DESTDIR)$(LIBDIR)/
	install -m 755 $(B)/libmodels.so $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libmodels.so
	install -m 755 $(B)/bin/models $(DESTDIR)$(BINDIR)/
	install -m 644 data/machines.ini $(DESTDIR)$(DATADIR)/models/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|' \
	  -e 's|@VERSION@|$(shell sed -n 's/.*MDL_VERSION_STRING "\(.*\)"/\1/p' include/models/api.h)|' \
	  models.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/models.pc

-include $(shell find $(B) -name '*.d' 2>/dev/null)
endif
