# Paths and tools; override on the command line (make PREFIX=/opt/models CC=clang).
PREFIX     ?= /usr/local
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR     ?= $(PREFIX)/bin
DATADIR    ?= $(PREFIX)/share
MANDIR     ?= $(DATADIR)/man
BASHCOMPDIR ?= $(DATADIR)/bash-completion/completions
PKG_CONFIG ?= pkg-config
CC         ?= cc
FUZZ_CC    ?= clang
# Seconds each fuzz target runs under `make fuzz`.
FUZZ_SECONDS ?= 30
