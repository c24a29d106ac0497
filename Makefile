# Makefile - build, test and demo xtrabackup. Plain make, no generator.
#
#   make            build build/xtrabackup (and the generated man page)
#   make deps       install the Debian packages the build, tests and demo need (as root)
#   make check      deps + build + every test: CUnit, ASan/UBSan unit run, cppcheck,
#                   integration tests against real mariadbd servers, the fault
#                   campaign (make check-faults), MariaDB's mariabackup suite
#   make demo       deps + build + a throwaway MariaDB under write load, backed up end to end
#   make install    install binary and man page under $(PREFIX)
#
# CC, CFLAGS, PREFIX and DESTDIR may be overridden on the command line.

CC      ?= gcc
PREFIX  ?= /usr/local
BUILD   ?= build
VERSION := 0.1.0

PKGS    := libmariadb libzstd libcrypto zlib libcurl libarchive
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter -Wformat=2 -Wstrict-prototypes
CPPFLAGS_ALL := -D_GNU_SOURCE -DXB_VERSION='"$(VERSION)"' -Isrc -Iengine-hooks \
                $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -laio -lpthread -lm

# Every .c under src/ and engine-hooks/ is part of the program; main.c is the only
# file left out of the library the unit tests link against.
LIB_SRC := $(filter-out src/main.c,$(shell find src engine-hooks -name '*.c' 2>/dev/null | sort))
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o)
UNIT_SRC := $(sort $(wildcard test/unit/*_test.c))
UNIT_BIN := $(UNIT_SRC:test/unit/%.c=$(BUILD)/test/%)

DEB_PKGS := gcc make pkg-config mariadb-server mariadb-backup mariadb-client libmariadb-dev \
            libaio-dev libssl-dev libcurl4-openssl-dev libarchive-dev \
            libzstd-dev zlib1g-dev libcunit1-dev sysbench fio cppcheck clang libclang-rt-14-dev xxd time \
            openssh-server openssh-client zstd bsdutils galera-4 socat \
            mariadb-test mariadb-plugin-provider-bzip2 mariadb-plugin-provider-lz4 \
            mariadb-plugin-provider-lzma mariadb-plugin-provider-lzo mariadb-plugin-provider-snappy

.PHONY: all deps check check-mtr check-unit check-fuzz check-asan check-asan-integration check-lint check-integration check-faults demo install clean man

all: $(BUILD)/xtrabackup $(BUILD)/xbstream $(BUILD)/xtrabackup.1

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  if [ "$$(id -u)" != 0 ]; then echo "run 'make deps' as root (missing:$$missing)"; exit 1; fi; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(BUILD)/libxb.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/xtrabackup: $(BUILD)/src/main.o $(BUILD)/libxb.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(LDFLAGS)

# The same program invoked as xbstream is the stream extractor (mbstream's options).
$(BUILD)/xbstream: $(BUILD)/xtrabackup
	ln -sf xtrabackup $@

$(BUILD)/xtrabackup.1: $(BUILD)/xtrabackup
	$(BUILD)/xtrabackup --man > $@

man: $(BUILD)/xtrabackup.1

$(BUILD)/test/%: test/unit/%.c $(BUILD)/libxb.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -Itest/unit -o $@ $< $(BUILD)/libxb.a -lcunit $(LDLIBS) $(LDFLAGS)

check-unit: $(UNIT_BIN)
	@test/run-unit.sh $(UNIT_BIN)

# The same unit tests built with AddressSanitizer and UndefinedBehaviorSanitizer.
check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" check-unit

# The program itself under ASan/UBSan, driven by the integration scenarios that
# exercise the most code (threads, redo under load, DDL, signals) and by the
# fault scenarios whose paths nothing else takes (the manifest check, the
# prepare journal and its replay, a full disk, a dying server, argv masking).
ASAN_FAULTS := backup_damaged prepare_signals disk_full secrets server_killed backup_signals
ASAN_SCENARIOS := backup_under_load backup_ddl backup_interrupted backup_corrupt_full prepare_restart prepare_errors restore_warm restore_errors stream_xbstream stream_remote \
                  incremental_errors incremental_stream incremental_chain prepare_incremental export_tables restore_tables \
                  $(ASAN_FAULTS:%=$(CURDIR)/test/faults/t/%.sh)
check-asan-integration:
	@$(MAKE) --no-print-directory BUILD=build-asan CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
	  LDFLAGS="-fsanitize=address,undefined" build-asan/xtrabackup build-asan/xbstream
	@XB=$(CURDIR)/build-asan/xtrabackup XB_KIND=xtrabackup PREPARE_UNDER_TEST=$(CURDIR)/build-asan/xtrabackup \
	  TEST_RESULTS=$(CURDIR)/build-asan/test-results \
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  NO_SKIP=1 test/integration/run.sh $(ASAN_SCENARIOS)

# libFuzzer, built with clang (ASan + UBSan), run briefly from seed corpora: the
# redo parser, collector and page applier (real mini-transactions; two thirds of
# FUZZ_SECONDS), and the xbstream reader, path policy and extraction engine (small
# streams of every chunk type; the rest). Logs: build-fuzz/<target>.log.
FUZZ_SECONDS ?= 60
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
check-fuzz:
	@$(MAKE) --no-print-directory BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_CFLAGS)" build-fuzz/libxb.a
	@for t in redo_fuzz xbstream_fuzz; do \
	  clang $(CPPFLAGS_ALL) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o build-fuzz/$$t test/fuzz/$$t.c \
	    build-fuzz/libxb.a $(LDLIBS) || exit 1; done
	@mkdir -p build-fuzz/corpus build-fuzz/xbstream_corpus; \
	cp -n test/fuzz/corpus/* build-fuzz/corpus/ 2>/dev/null; \
	cp -n test/fuzz/xbstream_corpus/* build-fuzz/xbstream_corpus/ 2>/dev/null; \
	ok=0; bad=0; \
	run() { t=$$1; secs=$$2; shift 2; \
	  if UBSAN_OPTIONS=print_stacktrace=1 build-fuzz/$$t -max_total_time=$$secs -rss_limit_mb=2048 \
	       -print_final_stats=1 "$$@" > build-fuzz/$$t.log 2>&1; then \
	    echo "$$t: $$(grep -E 'stat::number_of_executed_units|cov:' build-fuzz/$$t.log | tail -2 | tr -s ' \n' ' ')"; \
	    ok=$$((ok + 1)); \
	  else tail -40 build-fuzz/$$t.log; bad=$$((bad + 1)); fi; }; \
	redo=$$(( $(FUZZ_SECONDS) * 2 / 3 )); [ $$redo -ge 1 ] || redo=1; \
	xbs=$$(( $(FUZZ_SECONDS) - redo )); [ $$xbs -ge 1 ] || xbs=1; \
	run redo_fuzz $$redo build-fuzz/corpus; \
	run xbstream_fuzz $$xbs -close_fd_mask=2 build-fuzz/xbstream_corpus; \
	echo "fuzz: $$ok passed, $$bad failed"; [ $$bad -eq 0 ]

check-lint:
	@echo "cppcheck:"; cppcheck --quiet --error-exitcode=1 --enable=warning,portability,performance \
	  --inline-suppr --std=c11 -D_GNU_SOURCE -Isrc -Iengine-hooks src engine-hooks && echo "cppcheck: 1 passed, 0 failed"

# Test tools linked against the library (xb_load is built by the harness itself).
$(BUILD)/xb_pagecmp: test/tools/xb_pagecmp.c $(BUILD)/libxb.a
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(BUILD)/libxb.a $(LDLIBS) $(LDFLAGS)

# .cfg files from a prepared backup's dictionary (the export tests).
$(BUILD)/xb_cfg: test/tools/xb_cfg.c $(BUILD)/libxb.a
	$(CC) $(CPPFLAGS_ALL) $(CPPFLAGS) $(CFLAGS) $(WARN) -o $@ $< $(BUILD)/libxb.a $(LDLIBS) $(LDFLAGS)

check-integration: all $(BUILD)/xb_pagecmp $(BUILD)/xb_cfg
	@NO_SKIP=1 test/integration/run.sh

# The fault campaign: the tool stopped, starved and fed damaged backups (test/faults/run.sh).
check-faults: all $(BUILD)/xb_pagecmp $(BUILD)/xb_cfg
	@NO_SKIP=1 test/faults/run.sh

# MariaDB's own test suite for mariabackup (suite/mariabackup of mariadb-test),
# with our binary standing in for mariabackup; see test/mtr/run.sh.
check-mtr: all
	@test/mtr/run.sh

check: deps
	@$(MAKE) --no-print-directory all
	@test/check.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@test/demo.sh

install: all
	install -D -m 0755 $(BUILD)/xtrabackup $(DESTDIR)$(PREFIX)/bin/xtrabackup
	ln -sf xtrabackup $(DESTDIR)$(PREFIX)/bin/xbstream
	install -D -m 0644 $(BUILD)/xtrabackup.1 $(DESTDIR)$(PREFIX)/share/man/man1/xtrabackup.1

clean:
	rm -rf build build-asan

-include $(LIB_OBJ:.o=.d) $(BUILD)/src/main.d $(UNIT_BIN:=.d)
