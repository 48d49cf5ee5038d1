# SPDX-License-Identifier: GPL-2.0
# fabtrace: one Makefile drives the module, the CLI, the tests and the demo.
#
#   make                 module for every installed Debian kernel + CLI
#   make KVER=...        module for one kernel
#   make install         module under /lib/modules/$KVER/extra + depmod, CLI,
#                        man page, bash completion, systemd units
#   make dkms-install    module sources to /usr/src/fabtrace-VERSION, then
#                        dkms add/build/install for every kernel (KVER=...)
#   make dkms-uninstall  dkms remove, sources removed
#   make deb             fabtrace and fabtrace-dkms .debs in build/deb, linted
#   make deps            every Debian package the build, demo and tests need
#   make check           host unit tests (no kernel needed)
#   make dkms-check      dkms build + install for every kernel, in build/dkms
#   make vm-test         kselftests in two QEMU nodes, every kernel
#   make test            deps + build + check + dkms-check + vm-test (CI)
#   make demo            two-node soft-RoCE cluster with fabtrace, live
#   make bench           benchmarks (print numbers, never fail on timing)
#   make fresh-check     make demo + make check on a bare Debian 12 root
#   make fuzz            the parser fuzzer for FUZZ_TIME s (default 600)
#   make test-debug      the VM suite on a KASAN/lockdep/kmemleak 6.12 kernel

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := all

TOP := $(CURDIR)
BUILD ?= $(TOP)/build
PREFIX ?= /usr/local
DESTDIR ?=
# systemd units: a local install's place (packages use /lib/systemd/system)
UNITDIR ?= /etc/systemd/system

# The release is written in one place, FABTRACE_VERSION in user/ft.h: the
# CLI prints it, the module carries it (modinfo), DKMS and the packages
# are named after it.
VERSION := $(shell sed -n 's/^\#define[[:space:]]*FABTRACE_VERSION[[:space:]]*"\(.*\)"/\1/p' \
	$(TOP)/user/ft.h)

# Every Debian kernel whose headers are installed, unless KVER names one.
# Read when make starts: a target that installs the headers first (demo,
# test) runs the rest in a sub-make, which reads it again.
# The debug kernel (make test-debug) is never among them.
KVERS := $(if $(KVER),$(KVER),$(sort $(filter-out %-ftdebug,\
	$(patsubst /lib/modules/%/build,%,$(wildcard /lib/modules/*/build)))))
# First line of a recipe that needs kernel headers.
need_kvers = @test -n "$(strip $(KVERS))" || { echo "no kernel headers in \
	/lib/modules/*/build: run 'make deps'" >&2; exit 1; }
KVER_HOST := $(shell uname -r)
# `make install` targets one kernel: the running one, unless KVER is given.
KVER_INSTALL := $(if $(KVER),$(KVER),$(KVER_HOST))

KMOD_SRCS := $(wildcard $(TOP)/kmod/*.[ch]) $(TOP)/kmod/Kbuild $(TOP)/Kbuild \
	$(wildcard $(TOP)/include/uapi/linux/*.h)

export TOP BUILD KVERS

.PHONY: all modules bench-modules test-modules user check vm-test test demo demo-run bench deps install \
	uninstall install-user uninstall-user clean style sparse spec-check help fresh-check \
	fuzz test-debug dkms-src dkms-install dkms-uninstall dkms-check deb harness

all: modules user

help:
	@sed -n '3,22s/^# \{0,1\}//p' $(TOP)/Makefile

# --- kernel module --------------------------------------------------------
# Each kernel gets its own tree of symlinks under build/, so objects built
# for 6.1 and 6.12 never mix and the source tree stays clean.
# kmod_rule KVER DIR KBUILD-ARGS TARGET: DIR/KVER/kmod/fabtrace.ko, a
# prerequisite of TARGET.  $$(MAKE), not $(MAKE): make sees a recursive
# make only in the rule as it runs, and gives kbuild its jobs then (the
# bench's one module was built on one core).
define kmod_rule
$(2)/$(1)/kmod/fabtrace.ko: $(KMOD_SRCS)
	@test -d /lib/modules/$(1)/build || \
		{ echo "no headers for kernel $(1): run 'make deps'" >&2; exit 1; }
	@rm -rf $(2)/$(1)/src && mkdir -p $(2)/$(1)/src
	@cp -rs $(TOP)/kmod $(TOP)/include $(TOP)/Kbuild $(2)/$(1)/src/
	$$(MAKE) -C /lib/modules/$(1)/build M=$(2)/$(1)/src $(3) \
		FABTRACE_VERSION=$(VERSION) modules
	@mkdir -p $(2)/$(1)/kmod
	@cp $(2)/$(1)/src/kmod/fabtrace.ko $$@
$(4): $(2)/$(1)/kmod/fabtrace.ko
endef
$(foreach k,$(KVERS),$(eval $(call kmod_rule,$(k),$(BUILD),,modules)))
# make bench's module: the same sources plus its test-only debugfs timers.
BENCH_KMOD := $(BUILD)/bench-kmod
$(foreach k,$(KVERS),$(eval $(call kmod_rule,$(k),$(BENCH_KMOD),\
	CONFIG_FABTRACE_BENCH=y,bench-modules)))
modules:
	$(need_kvers)
# Test-only modules (selftests/kmod), per kernel: BUILD/KVER/testmod/*.ko.
# ft_dcbnl's MAC parses pause frames with the module's pure parser.
TESTMOD_SRCS := $(wildcard $(TOP)/selftests/kmod/*.c) $(TOP)/selftests/kmod/Kbuild \
	$(TOP)/kmod/pause.h $(TOP)/kmod/pure.h
define testmod_rule
$(BUILD)/$(1)/testmod/ft_decoy.ko: $(TESTMOD_SRCS)
	@rm -rf $(BUILD)/$(1)/testmod && mkdir -p $(BUILD)/$(1)/testmod
	@cp -s $(TESTMOD_SRCS) $(BUILD)/$(1)/testmod/
	$$(MAKE) -C /lib/modules/$(1)/build M=$(BUILD)/$(1)/testmod modules
test-modules: $(BUILD)/$(1)/testmod/ft_decoy.ko
endef
$(foreach k,$(KVERS),$(eval $(call testmod_rule,$(k))))
# The counting soft HCA (selftests/hca/README), per kernel: rxe from Debian's
# linux-source-X.Y plus selftests/hca's patch, as BUILD/KVER/hca/ft_hca.ko.
HCA_SRCS := $(wildcard $(TOP)/selftests/hca/*.[ch]) $(TOP)/selftests/hca/Kbuild \
	$(TOP)/selftests/hca/build.sh
# X.Y of a KVER: the patch and linux-source of its series
hca_series = $(word 1,$(subst ., ,$(1))).$(word 2,$(subst ., ,$(1)))
define hca_rule
$(BUILD)/$(1)/hca/ft_hca.ko: $(HCA_SRCS) $(TOP)/selftests/hca/$(call hca_series,$(1)).patch
	+$(TOP)/selftests/hca/build.sh $(1) $(BUILD)/$(1)/hca
test-modules: $(BUILD)/$(1)/hca/ft_hca.ko
endef
$(foreach k,$(KVERS),$(eval $(call hca_rule,$(k))))
test-modules:
	$(need_kvers)

# --- userspace ------------------------------------------------------------
user:
	$(MAKE) -C $(TOP)/user

# --- install ----------------------------------------------------------------
install: all
	install -D -m 0644 $(BUILD)/$(KVER_INSTALL)/kmod/fabtrace.ko \
		$(DESTDIR)/lib/modules/$(KVER_INSTALL)/extra/fabtrace.ko
	$(if $(DESTDIR),,depmod -a $(KVER_INSTALL))
	$(MAKE) install-user

uninstall: uninstall-user
	rm -f $(DESTDIR)/lib/modules/$(KVER_INSTALL)/extra/fabtrace.ko
	$(if $(DESTDIR),,depmod -a $(KVER_INSTALL))

# Everything but the module (the fabtrace package installs this): the CLI
# and its man page (user/Makefile), the bash completion, and every systemd
# unit user/ has or generates (*.service, *.timer; user/*.in are templates
# user/Makefile fills in).
COMPLETIONDIR ?= $(PREFIX)/share/bash-completion/completions
USER_MAKE = $(MAKE) -C $(TOP)/user PREFIX=$(PREFIX) DESTDIR=$(DESTDIR) UNITDIR=$(UNITDIR)
# user/'s units, made or not yet made from their templates (shell words)
user_units = $$(cd $(TOP)/user && ls *.service *.timer *.service.in *.timer.in 2>/dev/null | \
	sed 's/\.in$$//' | sort -u)
install-user:
	$(USER_MAKE) all $(patsubst %.in,%,$(notdir $(wildcard $(TOP)/user/*.service.in \
		$(TOP)/user/*.timer.in)))
	$(USER_MAKE) install
	install -D -m 0644 $(TOP)/user/fabtrace.bash-completion \
		$(DESTDIR)$(COMPLETIONDIR)/fabtrace
	for u in $(user_units); do \
		install -D -m 0644 $(TOP)/user/$$u $(DESTDIR)$(UNITDIR)/$$u; done

uninstall-user:
	$(USER_MAKE) uninstall
	rm -f $(DESTDIR)$(COMPLETIONDIR)/fabtrace
	for u in $(user_units); do rm -f $(DESTDIR)$(UNITDIR)/$$u; done

# --- DKMS -------------------------------------------------------------------
# DKMS builds the module on the node itself, for the running kernel and each
# one installed later: the module's sources plus dkms.conf (kmod/dkms.conf.in)
# in /usr/src/fabtrace-VERSION.  make dkms-src stages them in
# DKMS_SRC/fabtrace-VERSION (default build/dkms-src; the package's rules
# point DKMS_SRC into the package).
# DKMS_ROOT=DIR moves DKMS's trees under DIR (DIR/usr/src, DIR/var/lib/dkms,
# DIR/lib/modules, the signing key in DIR/var/lib/dkms) and leaves depmod
# out: make dkms-check installs there and the host stays untouched.
DKMS_SRC ?= $(BUILD)/dkms-src
DKMS_ROOT ?=
DKMS_FILES := Kbuild kmod/Kbuild include/uapi/linux/fabtrace.h \
	$(patsubst $(TOP)/%,%,$(wildcard $(TOP)/kmod/*.[ch]))
DKMS_MV := -m fabtrace -v $(VERSION)
DKMS_TREES := $(if $(DKMS_ROOT),--sourcetree=$(DKMS_ROOT)/usr/src \
	--dkmstree=$(DKMS_ROOT)/var/lib/dkms --installtree=$(DKMS_ROOT)/lib/modules)
DKMS := $(if $(DKMS_ROOT),mok_signing_key=$(DKMS_ROOT)/var/lib/dkms/mok.key \
	mok_certificate=$(DKMS_ROOT)/var/lib/dkms/mok.pub) dkms
dkms-src:
	@test -n "$(VERSION)" || { echo "no FABTRACE_VERSION in user/ft.h" >&2; exit 1; }
	rm -rf $(DKMS_SRC)/fabtrace-$(VERSION) && mkdir -p $(DKMS_SRC)/fabtrace-$(VERSION)
	cd $(TOP) && cp --parents $(DKMS_FILES) $(DKMS_SRC)/fabtrace-$(VERSION)/
	sed 's/@VERSION@/$(VERSION)/' $(TOP)/kmod/dkms.conf.in \
		>$(DKMS_SRC)/fabtrace-$(VERSION)/dkms.conf

# A kernel dkms.conf leaves out (BUILD_EXCLUSIVE_*: dkms exits 77) is
# skipped, not an error.  Installing the same version again starts over
# from the new sources.
dkms-install: dkms-src
	$(need_kvers)
	@command -v dkms >/dev/null || { echo "dkms is not installed: make deps" >&2; exit 1; }
	if [ -n "$$(dkms status $(DKMS_TREES) $(DKMS_MV) 2>/dev/null)" ]; then \
		$(DKMS) remove $(DKMS_TREES) $(DKMS_MV) --all $(if $(DKMS_ROOT),--no-depmod); fi
	mkdir -p $(DKMS_ROOT)/usr/src $(if $(DKMS_ROOT),$(DKMS_ROOT)/var/lib/dkms \
		$(addprefix $(DKMS_ROOT)/lib/modules/,$(KVERS)))
	rm -rf $(DKMS_ROOT)/usr/src/fabtrace-$(VERSION)
	cp -a $(DKMS_SRC)/fabtrace-$(VERSION) $(DKMS_ROOT)/usr/src/
	$(DKMS) add $(DKMS_TREES) $(DKMS_MV)
	@for k in $(KVERS); do \
		rc=0; $(DKMS) build $(DKMS_TREES) $(DKMS_MV) -k $$k || rc=$$?; \
		if [ $$rc = 77 ]; then echo "dkms-install: $$k skipped (dkms.conf)"; continue; fi; \
		[ $$rc = 0 ] || exit $$rc; \
		$(DKMS) install $(DKMS_TREES) $(DKMS_MV) -k $$k $(if $(DKMS_ROOT),--no-depmod); \
	done

dkms-uninstall:
	@command -v dkms >/dev/null || { echo "dkms is not installed" >&2; exit 1; }
	if [ -n "$$(dkms status $(DKMS_TREES) $(DKMS_MV) 2>/dev/null)" ]; then \
		$(DKMS) remove $(DKMS_TREES) $(DKMS_MV) --all $(if $(DKMS_ROOT),--no-depmod); fi
	rm -rf $(DKMS_ROOT)/usr/src/fabtrace-$(VERSION)

# dkms-check: dkms-install and dkms-uninstall for every kernel, under
# DKMS_ROOT=build/dkms/root (selftests/pkg/dkms_check.sh); what DKMS
# installed stays in build/dkms/install/KVER/updates/dkms/ for
# selftests/dkms.sh to load in a node.  make test runs it before vm-test.
dkms-check:
	$(need_kvers)
	$(TOP)/selftests/pkg/dkms_check.sh $(KVERS)

# --- Debian packages ----------------------------------------------------------
# make deb: the binary packages fabtrace (CLI, man page, bash completion,
# systemd units) and fabtrace-dkms (the module's sources for DKMS), built by
# dpkg-buildpackage (debhelper 13, dh-dkms) in a copy of this tree staged in
# build/deb/fabtrace-VERSION, with user/debian/ as its debian/; then lintian,
# whose errors fail the target (selftests/scripts/deb.sh).
deb:
	$(TOP)/selftests/scripts/deb.sh $(BUILD)/deb $(VERSION)

# --- dependencies -----------------------------------------------------------
deps:
	@$(TOP)/selftests/scripts/deps.sh

# --- tests --------------------------------------------------------------------
check: user $(BUILD)/tools/.stamp
	$(MAKE) -C $(TOP)/user check
	$(MAKE) -C $(TOP)/selftests host-check

# Both kernels' node pairs at once: node A of a pair keeps one host core
# busy and node B little, so on two cores the second pair uses what the
# first leaves idle (VM_JOBS=1: one kernel after the other).
VM_JOBS ?= 2
vm-test: all test-modules $(BUILD)/tools/.stamp $(BUILD)/tools/iproute2/.stamp
	$(need_kvers)
	$(MAKE) -C $(TOP)/selftests all
	$(TOP)/selftests/qemu/vm-test.sh -j $(VM_JOBS) $(KVERS)

# Each step's start is stamped, so that where the suite's time goes shows.
test_step = @echo "make test: $(1) at $$(date +%T) ($$(( $$(date +%s) - $(2) )) s in)"
# The host builds run on every core (their output kept together per job);
# the VM step builds its test modules so, then runs live (VM_JOBS).  Not
# make check: under -O its runner's stdout and TAP file differ
# (harness_selftest.sh), a thing to understand before it runs there.
TEST_J := -j$(shell nproc) --output-sync=recurse
#
# make check runs on one core most of its time (its fuzzers, shell and
# Python tests): the hygiene and DKMS builds run beside it, each step's
# output kept in build/logs and shown when both are done.
test: deps
	$(eval T0 := $(shell date +%s))
	$(call test_step,all,$(T0))
	$(MAKE) $(TEST_J) all $(BUILD)/tools/.stamp
	$(call test_step,check | style sparse spec-check dkms-check,$(T0))
	@mkdir -p $(BUILD)/logs; \
	$(MAKE) check >$(BUILD)/logs/check.log 2>&1 & c=$$!; \
	{ $(MAKE) $(TEST_J) style sparse spec-check && \
	  echo "make test: dkms-check at $$(date +%T)" && \
	  $(MAKE) dkms-check; } >$(BUILD)/logs/hygiene.log 2>&1; h=$$?; \
	wait $$c; cr=$$?; \
	cat $(BUILD)/logs/check.log $(BUILD)/logs/hygiene.log; \
	echo "make test: check exit $$cr; style sparse spec-check dkms-check exit $$h"; \
	test $$cr = 0 -a $$h = 0
	$(call test_step,vm-test,$(T0))
	$(MAKE) -j$(shell nproc) vm-test
	$(call test_step,bench smoke,$(T0))
	$(MAKE) -j$(shell nproc) bench BENCH=smoke
	$(call test_step,done,$(T0))

# deps may install the first kernel headers: the rest runs in a sub-make,
# which sees them.
demo: deps
	$(MAKE) demo-run

# The newest kernel; node A becomes a hardware NIC (ft_hca) at the end.
DEMO_KVER = $(firstword $(filter 6.12%,$(KVERS)) $(KVERS))
demo-run: all $(BUILD)/tools/.stamp $(if $(DEMO_KVER),$(BUILD)/$(DEMO_KVER)/hca/ft_hca.ko)
	$(need_kvers)
	$(MAKE) -C $(TOP)/selftests all
	$(TOP)/selftests/qemu/demo.sh $(DEMO_KVER)

fresh-check:
	$(TOP)/selftests/scripts/fresh-check.sh

# Debian's kernels have no KASAN, lockdep or kmemleak: Debian's 6.12 source
# with them, built once and cached by config (selftests/qemu/debug-kernel.sh),
# then the VM suite on it (T= picks tests; every test limit scaled by 4).
test-debug: deps user
	$(TOP)/selftests/qemu/debug-kernel.sh test

# make check fuzzes for 30 s, to show the fuzzers run clean; this is the
# longer run.
FUZZ_TIME ?= 600
fuzz: $(BUILD)/tools/.stamp
	$(MAKE) -C $(TOP)/selftests/pure fuzz FUZZ_TIME=$(FUZZ_TIME)

# The bench runs on the newest kernel alone: its module only is built.
BENCH_KVER := $(lastword $(KVERS))
bench: all $(if $(BENCH_KVER),$(BENCH_KMOD)/$(BENCH_KVER)/kmod/fabtrace.ko) \
		$(BUILD)/tools/.stamp
	$(need_kvers)
	$(MAKE) -C $(TOP)/selftests all
	FT_KMOD_BUILD=$(BENCH_KMOD) $(TOP)/selftests/bench/bench.sh $(or $(BENCH),full) \
		$(BENCH_KVER)

# --- code hygiene ----------------------------------------------------------
style: $(BUILD)/tools/.stamp
	$(BUILD)/tools/scripts/checkpatch.pl --no-tree --strict --quiet \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE \
		--codespell --codespellfile $(BUILD)/tools/codespell.txt \
		-f $(wildcard $(TOP)/kmod/*.[ch] $(TOP)/selftests/hca/*.[ch]) \
		$(TOP)/include/uapi/linux/fabtrace.h
	@# the test modules' too; ft_dcbnl extends a netdev's ethtool operations
	@# at load, in a copy that cannot be const
	$(BUILD)/tools/scripts/checkpatch.pl --no-tree --strict --quiet \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE,CONST_STRUCT \
		--codespell --codespellfile $(BUILD)/tools/codespell.txt \
		-f $(wildcard $(TOP)/selftests/kmod/*.c)
	@# user/: every cppcheck warning is a defect or explained in cppcheck.supp
	cppcheck --enable=warning,portability --std=c11 --quiet --error-exitcode=1 \
		--inline-suppr --suppress=missingIncludeSystem \
		--suppressions-list=$(TOP)/user/cppcheck.supp \
		-I $(TOP)/include/uapi -I $(TOP)/user \
		$(wildcard $(TOP)/user/*.c $(TOP)/user/tests/*.c)

sparse: $(BUILD)/tools/.stamp
	$(need_kvers)
	@for k in $(KVERS); do \
		rm -rf $(BUILD)/sparse-$$k && mkdir -p $(BUILD)/sparse-$$k && \
		cp -rs $(TOP)/kmod $(TOP)/include $(TOP)/Kbuild $(BUILD)/sparse-$$k/ && \
		$(MAKE) -s -C /lib/modules/$$k/build M=$(BUILD)/sparse-$$k C=2 \
			CONFIG_FABTRACE_BENCH=y \
			CF="-D__CHECK_ENDIAN__ -Wsparse-error" modules 2>&1 | \
			tee $(BUILD)/sparse-$$k.log; \
		if grep -E 'warning|error' $(BUILD)/sparse-$$k.log; then \
			echo "sparse: $$k not clean" >&2; exit 1; fi; \
		echo "sparse: $$k clean"; \
	done

# The YAML spec is the protocol's source of truth: the UAPI header and the
# kernel policy/ops tables are generated from it and must match byte for byte.
spec-check: $(BUILD)/tools/.stamp
	$(TOP)/Documentation/netlink/gen.sh --check

spec-gen: $(BUILD)/tools/.stamp
	$(TOP)/Documentation/netlink/gen.sh

# The kselftest harness the C tests use (selftests/, selftests/pure/, user/tests/).
HARNESS_H := tools/testing/selftests/kselftest_harness.h tools/testing/selftests/kselftest.h

# Kernel tools we borrow (checkpatch, ynl-gen) come from Debian's
# linux-source-6.12; extract only what we need.
$(BUILD)/tools/.stamp:
	@rm -rf $(BUILD)/tools && mkdir -p $(BUILD)/tools
	tar -xf /usr/src/linux-source-6.12.tar.xz -C $(BUILD)/tools \
		--strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' '*/tools/net/ynl/*' \
		$(addprefix '*/,$(addsuffix ',$(HARNESS_H))) \
		'*/Documentation/netlink/*.yaml' '*/MAINTAINERS'
	@# ECT (ECN-capable transport) is a word here, not a typo of "etc"
	grep -v '^ect->' /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt \
		> $(BUILD)/tools/codespell.txt
	@touch $@

# The harness alone (user/Makefile asks for it when it is not there yet):
# what a build of the Debian package, which runs the CLI's unit tests,
# needs of linux-source.
harness:
	@test -e $(BUILD)/tools/$(firstword $(HARNESS_H)) || { mkdir -p $(BUILD)/tools && \
		tar -xf /usr/src/linux-source-6.12.tar.xz -C $(BUILD)/tools \
		--strip-components=1 --wildcards $(addprefix '*/,$(addsuffix ',$(HARNESS_H))); }

# dcb(8) with apptrust (iproute2 6.2 on) for selftests/dcb.sh: bookworm-
# backports' iproute2, unpacked here, never installed over Debian 12's.
$(BUILD)/tools/iproute2/.stamp:
	@rm -rf $(BUILD)/tools/iproute2 && mkdir -p $(BUILD)/tools/iproute2
	cd $(BUILD)/tools/iproute2 && apt-get download -q -o APT::Sandbox::User=root \
		iproute2/bookworm-backports && dpkg-deb -x iproute2_*.deb .
	@touch $@

clean:
	rm -rf $(BUILD)
	$(MAKE) -C $(TOP)/user clean
	$(MAKE) -C $(TOP)/selftests clean
