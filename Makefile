# SPDX-License-Identifier: GPL-2.0
# newtod: the 2005 "new timeofday core" rebuilt on Linux 6.12, built and
# measured in QEMU. 'make help' lists the targets.

SHELL := /bin/bash
.DEFAULT_GOAL := help
TOP := $(CURDIR)
BUILD := $(TOP)/build
KSRC := $(BUILD)/linux
KOUT := $(BUILD)/kbuild
KOUT_DEBUG := $(BUILD)/kbuild-debug
KOUT_KCSAN := $(BUILD)/kbuild-kcsan
KOUT_I386 := $(BUILD)/kbuild-i386
# make test-stock-base: the unpatched tree (tag 'base' of build/linux, a
# git worktree) and its kernel
KSRC_BASE := $(BUILD)/linux-base
KOUT_BASE := $(BUILD)/kbuild-base
FRAG := $(TOP)/guest/kernel.config
FRAG_I386 := $(FRAG) $(TOP)/guest/kernel-i386.config
RESULTS := $(BUILD)/results
GBIN := $(BUILD)/guest-bin
GBIN32 := $(BUILD)/guest-bin32
SELFTESTS := $(KSRC)/tools/testing/selftests
export TOP BUILD KSRC KOUT RESULTS

CC := gcc
CFLAGS := -O2 -g -Wall -Wextra -std=gnu11
GUEST_LDFLAGS := -static -pthread
TEST_TIMEOUT ?= 900
BENCH_TIMEOUT ?= 1200
RUN_TIMEOUT ?= 600

# One build directory, one initramfs: targets never run in parallel.
.NOTPARALLEL:

# shquote: a value for use inside single quotes in a recipe.
shquote = $(subst ','\'',$(1))

.PHONY: kernel-base test-stock test-stock-base stock-hostcheck kst-base
.PHONY: help deps deps-host tree kernel kernel-debug kernel-kcsan kernel-i386 check test-kcsan test-i386 test-i386-full debug-check \
	guest-bin guest-bin32 initramfs initramfs-i386 test bench bench-notes limits bench-host shell run patches \
	checkpatch lint hostcheck harness-check series-check series-check-i386 bench-i386 shellcheck clean distclean

help:
	@echo "newtod: the 2005 new timeofday core on Linux 6.12, built and tested in QEMU (TCG)."
	@echo "Every target builds what it needs first. Logs and results: build/results/."
	@echo
	@echo "The two commands"
	@echo "  make test        everything: packages, tree, three kernels, two initramfs, the harness's own"
	@echo "                   checks, then every boot of guest/boots.list not marked on-demand; each"
	@echo "                   program's result streams as it ends; closes 'N passed, N failed[, N skipped]'"
	@echo "  make bench       one guest boot: syscall, tod vDSO and stock vDSO side by side, ratios,"
	@echo "                   perf stat, hyperfine; table, JSON and chart in build/results/bench-latest"
	@echo
	@echo "Inner loop"
	@echo "  make check       one boot: KUnit and a smoke set (each tod id, a switch, adjtimex, PTP)"
	@echo "  make run CMD='...' [EXTRA=DIR]  run CMD in the guest (EXTRA's files in /extra); its exit status"
	@echo "  make shell       a guest shell ('exit' leaves; Ctrl-a x kills QEMU)"
	@echo "  make test ONLY='BOOT... @KERNEL...'  only those boots (@i386: the i386 kernel's); says it is partial"
	@echo
	@echo "Other boots"
	@echo "  make test-i386   the i386 kernel's boots of make test (qemu-system-i386)"
	@echo "  make test-i386-full  those and the on-demand i386-pit and i386-stock-set"
	@echo "  make test-kcsan  the debug stress set on a KCSAN kernel, then its planted race (debug-check kcsan)"
	@echo "  make test-stock  the stock timers and vDSO selftests: make test's stock boots and the"
	@echo "                   on-demand stock-set, i386-stock-set"
	@echo "  make test-stock-base  the same selftests on the unpatched tree (build/linux-base, kbuild-base)"
	@echo "  make debug-check provoke each class of debug-kernel report; each must fail its boot"
	@echo "  make harness-check  boot guests that fail, panic and hang; each must be caught"
	@echo
	@echo "Benchmarks"
	@echo "  make bench BOOTS=N  the bench in N boots: each ratio's median and range"
	@echo "  make bench-i386  the bench in the i386 guest (no hyperfine, perf)"
	@echo "  make bench-host  the tod and stock vDSO readers compiled for user space, timed on this host's CPU"
	@echo "  make bench-notes rewrite NOTES.md's generated bench section from build/results/bench-latest"
	@echo "  make limits      the tests' limits against the figures of make test runs (RUNS='DIR...')"
	@echo
	@echo "The patch series and lint"
	@echo "  make patches     export build/linux base..HEAD into kernel-patches/"
	@echo "  make lint        checkpatch --strict over the series, then sparse, W=1, kernel-doc over what it adds"
	@echo "  make checkpatch  the same as make lint (its older name, which the developers' guide uses)"
	@echo "  make series-check  build the kernel at every patch (FROM=N: from patch N)"
	@echo "  make series-check-i386  the same for the i386 kernel"
	@echo "  make shellcheck  shellcheck over every script"
	@echo
	@echo "Checks of the harness"
	@echo "  make hostcheck   the harness's host-side tests (make test runs them first)"
	@echo "  make stock-hostcheck  the stock selftests' wrapper under busybox, and guest/stock-xfail.list"
	@echo
	@echo "Pieces (each target above builds them as needed)"
	@echo "  make deps        install Debian's packages (root) and download the i386 guest's busybox"
	@echo "  make deps-host   the packages only (what every x86-64 target needs)"
	@echo "  make tree        unpack linux-source-6.12 into build/linux (tag base), apply kernel-patches/"
	@echo "  make kernel      the guest kernel (tinyconfig + guest/kernel.config) in build/kbuild"
	@echo "  make kernel-debug, kernel-kcsan, kernel-i386, kernel-base"
	@echo "                   the same plus guest/kernel-NAME.config, in build/kbuild-NAME"
	@echo "                   (kernel-base: the unpatched tree, build/linux-base)"
	@echo "  make guest-bin, guest-bin32  the static test and bench programs (64-bit, 32-bit)"
	@echo "  make initramfs, initramfs-i386  the guests' initramfs images"
	@echo "  make kst-base    the kselftest runner of the unpatched tree, for stock-hostcheck"
	@echo "  make clean       remove every build output but the trees (build/linux, with any work in it;"
	@echo "                   build/linux-base) and the i386 busybox, a download that needs root"
	@echo "  make distclean   remove build/ whole"
	@echo "  make help        this list"
	@echo
	@echo "Settings (make VAR=value, or the environment)"
	@echo "  TEST_TIMEOUT=$(TEST_TIMEOUT)  seconds per boot of make test and its kin"
	@echo "  STOCK_BASE_TIMEOUT=$(STOCK_BASE_TIMEOUT)  the same for make test-stock-base"
	@echo "  BENCH_TIMEOUT=$(BENCH_TIMEOUT)  seconds for a bench boot;  RUN_TIMEOUT=$(RUN_TIMEOUT)  for make run"
	@echo "  ONLY='...'       the boots make test runs (above);  BOOTS=N  bench boots"
	@echo "  APPEND='...'     more kernel parameters;  QEMU_OPTS='...'  more QEMU options"
	@echo "  TSC_PARAM=...    replaces tsc=reliable on the kernel command line (empty: none)"
	@echo "  (another kernel in run or shell: call the runner itself, e.g."
	@echo "   KOUT=build/kbuild-debug scripts/qemu.sh --job run --cmd '...'; its head comment says more)"
	@echo "  V=1              show the guest console while it runs"
	@echo "  RUNS='DIR...'    results directories for make limits;  NOTES_ARGS='...'  for make bench-notes"
	@echo "  TODREAD_ARGS='--iters N --rounds N'  for make bench-host"
	@echo "  FROM=N           make series-check from patch N;  FORCE_TREE=1  rebuild build/linux even with work in it"
	@echo "  CONFIG_CHECK=warn  a fragment option the kernel lost warns instead of failing"

deps:
	@scripts/deps.sh all

# What every target needs: the packages, not the i386 busybox (which make deps also downloads),
# so that a user without root can build and boot the x86-64 guest once
# they are installed.
deps-host:
	@scripts/deps.sh host

tree: deps-host
	@scripts/tree.sh

kernel: tree
	@scripts/kernel.sh

# The debug kernels: the same tree and fragment plus a debug fragment, each
# in its own output directory (ccache shared).
kernel-debug: tree
	@KOUT='$(KOUT_DEBUG)' FRAGMENTS='$(FRAG) $(TOP)/guest/kernel-debug.config' scripts/kernel.sh

kernel-kcsan: tree
	@KOUT='$(KOUT_KCSAN)' FRAGMENTS='$(FRAG) $(TOP)/guest/kernel-kcsan.config' scripts/kernel.sh

# The unpatched tree (tag base of build/linux, checked out as a git worktree
# in build/linux-base, made again when build/linux was imported again) and
# its kernel: guest/kernel.config less the series' options
# (guest/kernel-base.config), in build/kbuild-base, for make test-stock-base.
kernel-base: tree
	@if [ "$$(git -C '$(KSRC_BASE)' rev-parse -q --verify HEAD 2>/dev/null)" != \
		"$$(git -C '$(KSRC)' rev-parse -q --verify 'base^{commit}')" ]; then \
		rm -rf '$(KSRC_BASE)' && git -C '$(KSRC)' worktree prune && \
		git -C '$(KSRC)' worktree add -q --detach '$(KSRC_BASE)' base || exit 1; \
	fi
	@KSRC='$(KSRC_BASE)' KOUT='$(KOUT_BASE)' FRAGMENTS='$(FRAG) $(TOP)/guest/kernel-base.config' scripts/kernel.sh

# The i386 guest kernel: the same tree and fragment, made 32-bit by
# guest/kernel-i386.config, in its own output directory (ccache shared).
kernel-i386: tree
	@KOUT='$(KOUT_I386)' KARCH=i386 FRAGMENTS='$(FRAG_I386)' scripts/kernel.sh

# --- static guest binaries ---------------------------------------------------
# The programs of guest/tests/, each built from the .c file of its name: a
# new one needs its name here to be built (guest/tests.list runs it).
GUEST_C_TESTS := $(addprefix $(GBIN)/tests/,tod_core tod_ntp tod_boot tod_phc tod_adjtimex \
	tod_fuzz tod_unstable tod_unregister tod_hotplug tod_follow)
# The series' own kernel selftests (tools/testing/selftests/timers/, added
# by kernel-patches/), built from the tree as 'make -C
# tools/testing/selftests TARGETS=timers' builds them, but static.
KST_TIMERS := $(addprefix $(GBIN)/tests/,tod_clocks tod_ptp tod_ntp_parity tod_leap \
	inconsistency-check)
# tod_vdso32: tod_vdso as a 32-bit program (the compat vDSO, vdso32), with
# a 64-bit time_t as 32-bit programs that outlive 2038 are built.
# The vDSO's own selftest (tools/testing/selftests/vDSO), which the series
# teaches the tod ids: built by its Makefile, dynamically linked (it finds
# the vDSO with dlopen; scripts/initramfs.sh adds the libraries), and a
# second time as a 32-bit program for the compat vDSO.
KST_VDSO := $(GBIN)/tests/vdso_test_correctness $(GBIN)/tests/vdso_test_correctness32 \
	$(GBIN)/tests/bracket2ktap
GUEST_TESTS := $(GBIN)/tests/vdso_order $(GBIN)/tests/tod_vdso $(GBIN)/tests/tod_vdso32 \
	$(GUEST_C_TESTS) $(KST_TIMERS) $(KST_VDSO)
GUEST_BENCH := $(GBIN)/bench/gtod $(GBIN)/bench/sections $(GBIN)/bench/retries
GUEST_LIBS := $(GBIN)/lib/libtod.a $(GBIN)/lib32/libtod.a
M32 := -m32 -D_TIME_BITS=64 -D_FILE_OFFSET_BITS=64
CFLAGS32 = $(CFLAGS) $(M32)
PARSE_VDSO := $(SELFTESTS)/vDSO/parse_vdso.c
VDSO_INC := -I$(SELFTESTS)/vDSO -I$(SELFTESTS)

guest-bin: tree
	@$(MAKE) --no-print-directory $(GUEST_LIBS) $(GUEST_TESTS) $(GUEST_BENCH)

# libtod: the tod clocks through the vDSO, syscall fallback (vdso/tod.h).
# The kernel's vDSO parser is a member, so a user links libtod.a alone.
$(GBIN)/lib/tod.o: vdso/tod.c vdso/tod.h $(SELFTESTS)/vDSO/parse_vdso.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -I$(SELFTESTS)/vDSO -c -o $@ $<

$(GBIN)/lib/parse_vdso.o: $(PARSE_VDSO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c -o $@ $<

$(GBIN)/lib/libtod.a: $(GBIN)/lib/tod.o $(GBIN)/lib/parse_vdso.o
	rm -f $@
	$(AR) rcs $@ $^

$(GBIN)/lib32/tod.o: vdso/tod.c vdso/tod.h $(SELFTESTS)/vDSO/parse_vdso.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS32) -I$(SELFTESTS)/vDSO -c -o $@ $<

$(GBIN)/lib32/parse_vdso.o: $(PARSE_VDSO)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS32) -c -o $@ $<

$(GBIN)/lib32/libtod.a: $(GBIN)/lib32/tod.o $(GBIN)/lib32/parse_vdso.o
	rm -f $@
	$(AR) rcs $@ $^

# The headers the tests include: editing one rebuilds every test. Each test
# links libtod and libm; from a static archive the linker takes only what a
# program calls, so a test that calls neither gets nothing of them.
TEST_HDRS := guest/tests/todtest.h vdso/tod.h $(SELFTESTS)/kselftest.h
TEST_INC := -Ivdso -Iguest/tests -I$(SELFTESTS)
TEST_LINK = $(CC) $(CFLAGS) $(TEST_INC) -o $@ $(filter %.c,$^) $(GBIN)/lib/libtod.a \
	$(GUEST_LDFLAGS) -lm
TEST_LINK32 = $(CC) $(CFLAGS32) $(TEST_INC) -o $@ $(filter %.c,$^) $(GBIN)/lib32/libtod.a \
	$(GUEST_LDFLAGS) -lm

$(GUEST_C_TESTS): $(GBIN)/tests/%: guest/tests/%.c $(TEST_HDRS) $(GBIN)/lib/libtod.a
	@mkdir -p $(@D)
	$(TEST_LINK)

# tod_vdso: one program, its cases in files by concern (vdso/tests/tod_vdso.h)
TOD_VDSO_SRCS := $(addprefix vdso/tests/,tod_vdso.c tod_vdso_common.c tod_vdso_read.c \
	tod_vdso_syscalls.c tod_vdso_switch.c tod_vdso_hpet.c tod_vdso_hpetrevoke.c \
	tod_vdso_publish.c)
$(GBIN)/tests/tod_vdso: $(TOD_VDSO_SRCS) vdso/tests/tod_vdso.h $(TEST_HDRS) $(GBIN)/lib/libtod.a
	@mkdir -p $(@D)
	$(TEST_LINK)

$(GBIN)/tests/tod_vdso32: $(TOD_VDSO_SRCS) vdso/tests/tod_vdso.h $(TEST_HDRS) $(GBIN)/lib32/libtod.a
	@mkdir -p $(@D)
	$(TEST_LINK32)

# vdso_order reads the stock vDSO through the kernel's parser, not libtod
$(GBIN)/tests/vdso_order: vdso/tests/vdso_order.c $(PARSE_VDSO) $(SELFTESTS)/vDSO/parse_vdso.h \
		guest/tests/todtest.h $(SELFTESTS)/kselftest.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(VDSO_INC) -Iguest/tests -o $@ $(filter %.c,$^) $(GUEST_LDFLAGS)

# (removed first: the sub-make knows only the .c file, not what else changed)
$(GBIN)/tests/tod_leap: $(PARSE_VDSO) $(SELFTESTS)/vDSO/parse_vdso.h
KST_TIMERS_DEPS := $(SELFTESTS)/timers/Makefile $(SELFTESTS)/timers/tod_common.h $(SELFTESTS)/lib.mk \
	$(SELFTESTS)/kselftest_harness.h $(SELFTESTS)/kselftest.h
$(KST_TIMERS): $(GBIN)/tests/%: $(SELFTESTS)/timers/%.c $(KST_TIMERS_DEPS)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(SELFTESTS)/timers OUTPUT=$(abspath $(@D)) CC="$(CC)" \
		USERCFLAGS=-Werror USERLDFLAGS="$(GUEST_LDFLAGS)" $(abspath $@)

KST_VDSO_DEPS := $(SELFTESTS)/vDSO/vdso_test_correctness.c $(SELFTESTS)/vDSO/Makefile \
	$(SELFTESTS)/lib.mk $(SELFTESTS)/kselftest.h
$(GBIN)/tests/vdso_test_correctness: $(KST_VDSO_DEPS)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(SELFTESTS)/vDSO OUTPUT=$(abspath $(@D)) CC="$(CC)" \
		USERCFLAGS=-Werror $(abspath $@)

# it reports "[OK]"/"[FAIL]", not KTAP: the harness counts it through this
$(GBIN)/tests/bracket2ktap: guest/tests/bracket2ktap.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(GBIN)/tests/vdso_test_correctness32: $(KST_VDSO_DEPS)
	@mkdir -p $(GBIN)/kst32
	rm -f $@ $(GBIN)/kst32/vdso_test_correctness
	$(MAKE) --no-print-directory -C $(SELFTESTS)/vDSO OUTPUT=$(GBIN)/kst32 CC="$(CC)" \
		USERCFLAGS="-Werror -m32" USERLDFLAGS=-m32 $(GBIN)/kst32/vdso_test_correctness
	cp $(GBIN)/kst32/vdso_test_correctness $@

# The kernel's own timers and vDSO selftests, stock, run against the stock
# clocks (boots stock, stock-set, i386-stock, i386-stock-set and the
# on-demand stock-base of guest/boots.list) by guest/tests/kselftest-stock.sh
# through the kselftest runner. Built from the unpatched tree (tag base:
# the series changes inconsistency-check.c), extracted into
# build/kselftest-base, by their own Makefiles, static, into
# tests/kselftest/{timers,vDSO} with kselftest/runner.sh beside them: the
# layout of the selftests' install (BASE_DIR=/tests/kselftest). nanosleep,
# nsleep-lat and inconsistency-check are there for set-2038 and
# skew_consistency, which run them.
KST_BASE := $(BUILD)/kselftest-base
KST_BASE_SRC := $(KST_BASE)/tools/testing/selftests
BASE_COMMIT := $(shell git -C '$(KSRC)' rev-parse -q --verify 'base^{commit}' 2>/dev/null)
KST_BASE_STAMP := $(KST_BASE)/.base-$(BASE_COMMIT)
STOCK_TIMERS := posix_timers nanosleep nsleep-lat inconsistency-check threadtest valid-adjtimex \
	adjtick raw_skew set-2038 skew_consistency
STOCK_VDSO := vdso_test_abi vdso_test_gettimeofday vdso_test_clock_getres vdso_standalone_test_x86
# valid-adjtimex defines its own clock_adjtime(), which static glibc has too
# (the selftests link dynamically): the program's is the one linked
STOCK_LDFLAGS = $(GUEST_LDFLAGS) $(if $(filter valid-adjtimex,$*),-Wl$(comma)--allow-multiple-definition)
comma := ,
# KST_STOCK_TIMERS/VDSO DIR: those programs in DIR/tests/kselftest
KST_STOCK_TIMERS = $(addprefix $(1)/tests/kselftest/timers/,$(STOCK_TIMERS))
KST_STOCK_VDSO = $(addprefix $(1)/tests/kselftest/vDSO/,$(STOCK_VDSO))
KST_STOCK = $(call KST_STOCK_TIMERS,$(1)) $(call KST_STOCK_VDSO,$(1)) \
	$(1)/tests/kselftest/timers/settings $(1)/tests/kselftest/kselftest/runner.sh \
	$(1)/tests/kselftest-stock
GUEST_TESTS += $(call KST_STOCK,$(GBIN))

# (a target of its own for a sub-make, which knows the tag: make tree first)
kst-base: $(KST_BASE_STAMP)

$(KST_BASE_STAMP):
	@[ -n '$(BASE_COMMIT)' ] || { echo "ERROR: build/linux has no tag base: run 'make tree'" >&2; exit 1; }
	rm -rf $(KST_BASE)
	mkdir -p $(KST_BASE)
	git -C $(KSRC) archive base tools/testing/selftests/lib.mk tools/testing/selftests/kselftest.h \
		tools/testing/selftests/kselftest_harness.h tools/testing/selftests/kselftest \
		tools/testing/selftests/timers tools/testing/selftests/vDSO tools/scripts tools/include | \
		tar -x -C $(KST_BASE)
	touch $@

$(call KST_STOCK_TIMERS,$(GBIN)): $(GBIN)/tests/kselftest/timers/%: $(KST_BASE_STAMP)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(KST_BASE_SRC)/timers OUTPUT=$(@D) CC="$(CC)" \
		USERLDFLAGS="$(STOCK_LDFLAGS)" $@

$(call KST_STOCK_VDSO,$(GBIN)): $(GBIN)/tests/kselftest/vDSO/%: $(KST_BASE_STAMP)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(KST_BASE_SRC)/vDSO OUTPUT=$(@D) CC="$(CC)" \
		USERLDFLAGS="$(GUEST_LDFLAGS)" $@

$(GBIN)/tests/kselftest/timers/settings $(GBIN32)/tests/kselftest/timers/settings: $(KST_BASE_STAMP)
	@mkdir -p $(@D)
	install -m 644 $(KST_BASE_SRC)/timers/settings $@

$(GBIN)/tests/kselftest/kselftest/runner.sh $(GBIN32)/tests/kselftest/kselftest/runner.sh: $(KST_BASE_STAMP)
	@mkdir -p $(@D)
	install -m 755 $(KST_BASE_SRC)/kselftest/runner.sh $@

$(GBIN)/tests/kselftest-stock $(GBIN32)/tests/kselftest-stock: guest/tests/kselftest-stock.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

$(GBIN)/bench/gtod: bench/gtod.c $(PARSE_VDSO) $(SELFTESTS)/vDSO/parse_vdso.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(VDSO_INC) -o $@ $(filter %.c,$^) $(GUEST_LDFLAGS)

$(GBIN)/bench/sections: bench/sections.c bench/load.h vdso/tod.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ivdso -o $@ $(filter %.c,$^) $(GUEST_LDFLAGS)

$(GBIN)/bench/retries: bench/retries.c bench/load.h vdso/tod.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Ivdso -o $@ $(filter %.c,$^) $(GUEST_LDFLAGS)

# --- the i386 guest's binaries -----------------------------------------------
# The tests above that make sense on an i386 kernel, as 32-bit static
# programs under the names the 64-bit ones have, in build/guest-bin32 (the
# i386 initramfs's /tests): tod_vdso there is the program tod_vdso32 is
# here, vdso_test_correctness the 32-bit one. Not vdso_order (its
# __vdso_clock_gettime takes the 32-bit time_t timespec on i386, the
# program a 64-bit one). The bench programs, with a 64-bit time_t, for
# make bench-i386 (no hyperfine or perf in the i386 guest).
GUEST_TESTS32 := $(patsubst $(GBIN)/%,$(GBIN32)/%,$(GUEST_C_TESTS) $(KST_TIMERS)) \
	$(addprefix $(GBIN32)/tests/,tod_vdso vdso_test_correctness bracket2ktap)
GUEST_BENCH32 := $(patsubst $(GBIN)/%,$(GBIN32)/%,$(GUEST_BENCH))
# the stock selftests, -m32 (their own default time_t, as the selftests build for i386)
GUEST_TESTS32 += $(call KST_STOCK,$(GBIN32))

guest-bin32: tree
	@$(MAKE) --no-print-directory $(GUEST_TESTS32) $(GUEST_BENCH32)

$(GBIN32)/bench/gtod: bench/gtod.c $(PARSE_VDSO) $(SELFTESTS)/vDSO/parse_vdso.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS32) $(VDSO_INC) -o $@ $(filter %.c,$^) $(GUEST_LDFLAGS)

$(GBIN32)/bench/sections $(GBIN32)/bench/retries: $(GBIN32)/bench/%: bench/%.c bench/load.h vdso/tod.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS32) -Ivdso -o $@ $(filter %.c,$^) $(GUEST_LDFLAGS)

$(patsubst $(GBIN)/%,$(GBIN32)/%,$(GUEST_C_TESTS)): $(GBIN32)/tests/%: guest/tests/%.c $(TEST_HDRS) \
		$(GBIN)/lib32/libtod.a
	@mkdir -p $(@D)
	$(TEST_LINK32)

# (the selftests as their Makefile builds them for i386: -m32; it gives
# the series' destructive ones a 64-bit time_t)
$(GBIN32)/tests/tod_leap: $(PARSE_VDSO) $(SELFTESTS)/vDSO/parse_vdso.h
$(patsubst $(GBIN)/%,$(GBIN32)/%,$(KST_TIMERS)): $(GBIN32)/tests/%: $(SELFTESTS)/timers/%.c $(KST_TIMERS_DEPS)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(SELFTESTS)/timers OUTPUT=$(abspath $(@D)) CC="$(CC)" \
		USERCFLAGS="-Werror -m32" USERLDFLAGS="-m32 $(GUEST_LDFLAGS)" $(abspath $@)

$(call KST_STOCK_TIMERS,$(GBIN32)): $(GBIN32)/tests/kselftest/timers/%: $(KST_BASE_STAMP)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(KST_BASE_SRC)/timers OUTPUT=$(@D) CC="$(CC)" \
		USERCFLAGS=-m32 USERLDFLAGS="-m32 $(STOCK_LDFLAGS)" $@

$(call KST_STOCK_VDSO,$(GBIN32)): $(GBIN32)/tests/kselftest/vDSO/%: $(KST_BASE_STAMP)
	@mkdir -p $(@D)
	rm -f $@
	$(MAKE) --no-print-directory -C $(KST_BASE_SRC)/vDSO OUTPUT=$(@D) CC="$(CC)" \
		USERCFLAGS=-m32 USERLDFLAGS="-m32 $(GUEST_LDFLAGS)" $@

$(GBIN32)/tests/tod_vdso: $(GBIN)/tests/tod_vdso32
	@mkdir -p $(@D)
	cp $< $@

$(GBIN32)/tests/vdso_test_correctness: $(GBIN)/tests/vdso_test_correctness32
	@mkdir -p $(@D)
	cp $< $@

$(GBIN32)/tests/bracket2ktap: guest/tests/bracket2ktap.sh
	@mkdir -p $(@D)
	install -m 755 $< $@

initramfs: guest-bin
	@scripts/initramfs.sh

# The i386 guest's busybox (make deps downloads it): only the i386 targets
# need it.
initramfs-i386: guest-bin32 deps
	@KARCH=i386 scripts/initramfs.sh

# --- running the guest --------------------------------------------------------
# ONLY='BOOT... @KERNEL...' runs those boots alone (scripts/test.sh), and
# says so: a partial run, not make test's verdict.
test: hostcheck kernel kernel-debug kernel-i386 initramfs initramfs-i386
	@ONLY='$(call shquote,$(ONLY))' scripts/test.sh $(TEST_TIMEOUT)

# The inner loop: the kernel and test binaries brought up to date, then one
# boot of the normal kernel with KUnit and the smoke set ('check' in
# guest/tests.list). Not a substitute for 'make test'.
check: kernel initramfs
	@ONLY=check scripts/test.sh $(TEST_TIMEOUT)

# The debug stress set (less S3) on the KCSAN kernel, then the data race of
# provoke=race: a race in a function of the series fails, others are listed.
test-kcsan: kernel-kcsan initramfs
	@ONLY=kcsan scripts/test.sh $(TEST_TIMEOUT)
	@scripts/debug-check.sh kcsan

# The i386 guest alone (make test runs it too): its kernel and initramfs,
# the two @i386 boots of make test (not the on-demand i386-pit), on the TSC
# with KUnit and on the HPET.
test-i386: kernel-i386 initramfs-i386
	@ONLY=@i386 scripts/test.sh $(TEST_TIMEOUT)

# Every i386 boot of boots.list, the on-demand ones too (i386-pit: ts-pit's
# checks less xthread and S3, and tod_core's 10 s rates on i386, left out
# of make test).
test-i386-full: kernel-i386 initramfs-i386
	@ONLY='@i386 i386-pit i386-stock-set' scripts/test.sh $(TEST_TIMEOUT)

# The stock selftests of make test (the stock and stock-set boots' lines of
# guest/tests.list) on the unpatched kernel (make kernel-base), in one boot
# (stock-base, on-demand): a failure of make test's stock boots that this
# boot shows too is 6.12's or TCG's, not the series'. The same initramfs.
STOCK_BASE_TIMEOUT ?= 1800
# All four boots of the stock selftests on the patched kernels: make test's
# stock and i386-stock, and the on-demand stock-set and i386-stock-set
# (skew_consistency and set-2038, and adjtick on i386: about 23 minutes).
test-stock: kernel kernel-i386 initramfs initramfs-i386
	@ONLY='stock stock-set i386-stock i386-stock-set' scripts/test.sh $(TEST_TIMEOUT)

test-stock-base: kernel-base initramfs
	@ONLY=stock-base scripts/test.sh $(STOCK_BASE_TIMEOUT)

# Each class of debug-kernel report (lockdep, KASAN, UBSAN, ...) provoked
# in one boot of the debug kernel must fail that boot.
debug-check: kernel-debug initramfs
	@scripts/debug-check.sh debug

bench: kernel initramfs
	@scripts/bench.sh
	@echo
	@echo "bench-host: the tod and the stock vDSO readers of build/linux compiled for user"
	@echo "space, timed on this host's CPU beside the host kernel's vDSO (not the guest;"
	@echo "whether this host is itself a VM, and not bare metal, is printed below); their"
	@echo "correctness check failing fails 'make bench'"
	@$(MAKE) --no-print-directory bench-host

# bench/gtod, sections and retries in the i386 guest (its own results,
# build/results/bench-i386-latest; no hyperfine or perf stat there).
bench-i386: kernel-i386 initramfs-i386
	@KARCH=i386 KOUT='$(KOUT_I386)' scripts/bench.sh

# NOTES.md's generated section (between its bench-summary markers) from the
# latest run's summary.txt and run.json.
bench-notes:
	@python3 bench/notes.py $(NOTES_ARGS) '$(RESULTS)/bench-latest' NOTES.md

# The guest tests' limits against the figures the runs printed: a table for
# NOTES.md from the results of one or more make test runs (RUNS: their
# build/results directories; this tree's by default).
RUNS ?= $(RESULTS)
limits:
	@python3 scripts/limits.py $(RUNS)

# The tod vDSO reader of build/linux compiled for user space and timed on the
# host's CPU beside the stock reader of the same tree (bench/host/stockread.c)
# and the host's vDSO (bench/host/todread.c; shim.h explains the include path). TODREAD_ARGS='--iters N --rounds N' changes the run.
HOST_BIN := $(BUILD)/host-bin
TODREAD_INC := -iquote $(KSRC)/arch/x86/entry/vdso -idirafter $(KSRC)/include \
	-idirafter $(KSRC)/arch/x86/include

bench-host: tree
	@$(MAKE) --no-print-directory $(HOST_BIN)/todread
	@mkdir -p $(RESULTS)
	$(HOST_BIN)/todread $(TODREAD_ARGS) --json $(RESULTS)/host-todread.json
	@echo "bench-host: JSON in build/results/host-todread.json"

$(HOST_BIN)/todread: bench/host/todread.c bench/host/shim.h bench/host/stockread.h \
		bench/host/kernel-compat.h $(HOST_BIN)/stockread.o \
		$(KSRC)/arch/x86/entry/vdso/vtod_gettime.c $(KSRC)/include/vdso/tod.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Werror $(TODREAD_INC) -pthread -o $@ $< $(HOST_BIN)/stockread.o

# the stock vDSO reader, lib/vdso/gettimeofday.c, beside it (bench/host/stockread.c)
$(HOST_BIN)/stockread.o: bench/host/stockread.c bench/host/stockread.h bench/host/kernel-compat.h \
		$(KSRC)/lib/vdso/gettimeofday.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Werror -iquote $(KSRC)/lib/vdso -idirafter $(KSRC)/include \
		-idirafter $(KSRC)/arch/x86/include -c -o $@ $<

shell: kernel initramfs
	@scripts/qemu.sh --job shell

run: kernel initramfs
	@[ -n '$(call shquote,$(value CMD))' ] || { echo "ERROR: say what to run: make run CMD='cat /proc/version'" >&2; exit 2; }
	@scripts/qemu.sh --job run --cmd '$(call shquote,$(value CMD))' $(if $(EXTRA),--extra '$(EXTRA)') --timeout $(RUN_TIMEOUT)

# --- the patch series -----------------------------------------------------------
patches:
	@scripts/patches.sh export

# checkpatch --strict over the series, then sparse, W=1 and kernel-doc over
# the files and lines it adds (scripts/lint.sh); 'make checkpatch' is the
# same target under its old name.
lint checkpatch: kernel
	@scripts/patches.sh checkpatch
	@scripts/lint.sh

# --- checks of the harness itself -----------------------------------------------
hostcheck: tree $(GUEST_BENCH)
	@scripts/hostcheck.sh
	@$(MAKE) --no-print-directory kst-base
	@scripts/stock-hostcheck.sh

# guest/tests/kselftest-stock.sh under busybox sh with the tree's kselftest
# runner on fake selftests, and guest/stock-xfail.list against the lists
stock-hostcheck: tree
	@$(MAKE) --no-print-directory kst-base
	@scripts/stock-hostcheck.sh

harness-check: kernel initramfs
	@scripts/harness-check.sh

series-check: tree
	@KARCH=x86_64 scripts/series-check.sh

# the same for the i386 guest kernel (make kernel-i386's configuration)
series-check-i386: tree
	@KARCH=i386 FRAGMENTS='$(FRAG_I386)' scripts/series-check.sh

shellcheck:
	@shellcheck -x scripts/*.sh .ci/run && shellcheck -s sh guest/init guest/run-tests.sh bench/run-bench.sh bench/idle-wakeups.sh \
		guest/tests/bracket2ktap.sh guest/tests/kselftest-stock.sh

# Every build output: the kernels' build directories (build/kbuild*, the
# series-check's too), the guest binaries, the initramfs images, results
# and logs. build/linux (the patched tree, with work in it) and its
# worktree build/linux-base stay; distclean removes build/ whole.
# clean keeps the trees (build/linux, build/linux-base) and the i386
# busybox, a download that 'make deps' needs root for; series-check's
# worktrees go through git, so that build/linux does not keep stale ones.
clean:
	@for wt in $(BUILD)/series-wt*; do \
		[ ! -e "$$wt" ] || git -C $(KSRC) worktree remove --force "$$wt" 2>/dev/null || rm -rf "$$wt"; \
	done; [ ! -d $(KSRC)/.git ] || git -C $(KSRC) worktree prune
	rm -rf $(BUILD)/kbuild $(BUILD)/kbuild-* $(GBIN) $(GBIN32) $(BUILD)/host-bin $(RESULTS) \
		$(BUILD)/initramfs.* $(BUILD)/initramfs-i386.* $(BUILD)/*.log $(BUILD)/kselftest-base \
		$(BUILD)/cover-tail.txt $(BUILD)/htmldocs $(BUILD)/lint.diff

distclean:
	rm -rf $(BUILD)
