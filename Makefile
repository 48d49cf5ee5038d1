# SPDX-License-Identifier: GPL-2.0
# fabtrace: one Makefile drives the module, the CLI, the tests and the demo.
#
#   make                 module for every installed Debian kernel + CLI
#   make KVER=...        module for one kernel
#   make install         module under /lib/modules/$KVER/extra + depmod, CLI
#   make deps            every Debian package the build, demo and tests need
#   make check           host unit tests (no kernel needed)
#   make vm-test         kselftests in two QEMU nodes, every kernel
#   make test            deps + build + check + vm-test (what CI runs)
#   make demo            two-node soft-RoCE cluster with fabtrace, live
#   make bench           benchmarks (print numbers, never fail on timing)

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := all

TOP := $(CURDIR)
BUILD ?= $(TOP)/build
PREFIX ?= /usr/local
DESTDIR ?=

# Every Debian kernel whose headers are installed, unless KVER names one.
KVERS := $(if $(KVER),$(KVER),$(sort $(patsubst /lib/modules/%/build,%,\
	$(wildcard /lib/modules/*/build))))
KVER_HOST := $(shell uname -r)
# `make install` targets one kernel: the running one, unless KVER is given.
KVER_INSTALL := $(if $(KVER),$(KVER),$(KVER_HOST))

KMOD_SRCS := $(wildcard $(TOP)/kmod/*.[ch]) $(TOP)/kmod/Kbuild $(TOP)/Kbuild \
	$(wildcard $(TOP)/include/uapi/linux/*.h)

export TOP BUILD KVERS

.PHONY: all modules user check vm-test test demo bench deps install uninstall \
	clean style sparse spec-check help

all: modules user

help:
	@sed -n '3,13s/^# \{0,1\}//p' $(TOP)/Makefile

# --- kernel module --------------------------------------------------------
# Each kernel gets its own tree of symlinks under build/, so objects built
# for 6.1 and 6.12 never mix and the source tree stays clean.
define kmod_rule
$(BUILD)/$(1)/kmod/fabtrace.ko: $(KMOD_SRCS)
	@test -d /lib/modules/$(1)/build || \
		{ echo "no headers for kernel $(1): run 'make deps'" >&2; exit 1; }
	@rm -rf $(BUILD)/$(1)/src && mkdir -p $(BUILD)/$(1)/src
	@cp -rs $(TOP)/kmod $(TOP)/include $(TOP)/Kbuild $(BUILD)/$(1)/src/
	$(MAKE) -C /lib/modules/$(1)/build M=$(BUILD)/$(1)/src modules
	@mkdir -p $(BUILD)/$(1)/kmod
	@cp $(BUILD)/$(1)/src/kmod/fabtrace.ko $$@
modules: $(BUILD)/$(1)/kmod/fabtrace.ko
endef
$(foreach k,$(KVERS),$(eval $(call kmod_rule,$(k))))

# --- userspace ------------------------------------------------------------
user:
	$(MAKE) -C $(TOP)/user

# --- install ----------------------------------------------------------------
install: all
	install -D -m 0644 $(BUILD)/$(KVER_INSTALL)/kmod/fabtrace.ko \
		$(DESTDIR)/lib/modules/$(KVER_INSTALL)/extra/fabtrace.ko
	$(if $(DESTDIR),,depmod -a $(KVER_INSTALL))
	$(MAKE) -C $(TOP)/user install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER_INSTALL)/extra/fabtrace.ko
	$(if $(DESTDIR),,depmod -a $(KVER_INSTALL))
	$(MAKE) -C $(TOP)/user uninstall PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

# --- dependencies -----------------------------------------------------------
# Quiet and quick when everything is present; otherwise apt-get update, then
# install what is missing.  The newest Debian 6.12 kernel is looked up, never
# hard-coded.  QEMU comes from bookworm-backports: 7.2's TCG corrupts the
# flags of 6.12 guests now and then (see Documentation/design.rst).
DEB_PKGS := build-essential kmod cpio xz-utils linux-image-amd64 \
	linux-headers-amd64 linux-source-6.12 busybox-static \
	rdma-core ibverbs-utils perftest rdmacm-utils iproute2 libmnl-dev \
	libnl-3-dev libnl-genl-3-dev libibverbs-dev librdmacm-dev libjson-c-dev \
	tcpdump tshark sparse python3 python3-yaml python3-jsonschema yamllint \
	codespell valgrind clang libclang-rt-14-dev zstd shellcheck \
	iputils-ping jq bpftrace
QEMU_MIN := 1:10
deps:
	@# dpkg-query exits 1 for a package it does not know: awk lists those
	@missing=$$({ dpkg-query -W -f='$${db:Status-Abbrev} $${Package}\n' \
		$(DEB_PKGS) 'linux-image-6.12.*+deb12-amd64' \
		'linux-headers-6.12.*+deb12-amd64' 2>/dev/null || true; } | \
		awk '$$1 == "ii" { ok[$$2] = 1 } \
		     $$1 == "ii" && $$2 ~ /^linux-image-6\.12\./ { img = 1 } \
		     $$1 == "ii" && $$2 ~ /^linux-headers-6\.12\./ { hdr = 1 } \
		     END { n = split("$(DEB_PKGS)", p, " "); \
			   for (i = 1; i <= n; i++) if (!ok[p[i]]) print p[i]; \
			   if (!img || !hdr) print "linux-6.12" }'); \
	qv=$$(dpkg-query -W -f='$${Version}' qemu-system-x86 2>/dev/null || :); \
	dpkg --compare-versions "$${qv:-0}" ge $(QEMU_MIN) || \
		missing="$$missing qemu-system-x86/bookworm-backports"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	echo "deps: installing $$(echo $$missing)"; \
	export DEBIAN_FRONTEND=noninteractive; \
	grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list \
		/etc/apt/sources.list.d || \
		printf '%s\n' 'Types: deb' 'URIs: http://deb.debian.org/debian' \
			'Suites: bookworm-backports' 'Components: main' \
			'Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg' \
			>/etc/apt/sources.list.d/fabtrace-backports.sources; \
	apt-get update -qq; \
	k612=$$(apt-cache search --names-only \
		'^linux-image-6\.12\.[0-9]+\+deb12-amd64$$' | \
		awk '{ print $$1 }' | sort -V | tail -n 1); \
	test -n "$$k612" || { echo "deps: no Debian 6.12 kernel found" >&2; exit 1; }; \
	apt-get install -y -qq --no-install-recommends $(DEB_PKGS) \
		"$$k612" "$${k612/image/headers}" >/dev/null; \
	apt-get install -y -qq --no-install-recommends \
		-t bookworm-backports qemu-system-x86 >/dev/null; \
	qv=$$(dpkg-query -W -f='$${Version}' qemu-system-x86); \
	dpkg --compare-versions "$$qv" ge $(QEMU_MIN) || \
		{ echo "deps: QEMU $$qv is older than $(QEMU_MIN)" >&2; exit 1; }; \
	echo "deps: done"

# --- tests --------------------------------------------------------------------
check: user $(BUILD)/tools/.stamp
	$(MAKE) -C $(TOP)/user check
	$(MAKE) -C $(TOP)/selftests host-check

vm-test: all $(BUILD)/tools/.stamp
	$(MAKE) -C $(TOP)/selftests all
	$(TOP)/selftests/qemu/vm-test.sh $(KVERS)

test: deps
	$(MAKE) all
	$(MAKE) check
	$(MAKE) style sparse spec-check
	$(MAKE) vm-test
	$(MAKE) bench BENCH=smoke

demo: deps
	$(MAKE) all $(BUILD)/tools/.stamp
	$(MAKE) -C $(TOP)/selftests all
	$(TOP)/selftests/qemu/demo.sh $(firstword $(filter 6.12%,$(KVERS)) $(KVERS))

bench: all $(BUILD)/tools/.stamp
	$(MAKE) -C $(TOP)/selftests all
	$(TOP)/selftests/bench/bench.sh $(BENCH)

# --- code hygiene ----------------------------------------------------------
style: $(BUILD)/tools/.stamp
	$(BUILD)/tools/scripts/checkpatch.pl --no-tree --strict --quiet \
		--ignore FILE_PATH_CHANGES,SPDX_LICENSE_TAG,LINUX_VERSION_CODE \
		--codespell --codespellfile $(BUILD)/tools/codespell.txt \
		-f $(wildcard $(TOP)/kmod/*.[ch]) $(TOP)/include/uapi/linux/fabtrace.h

sparse: $(BUILD)/tools/.stamp
	@for k in $(KVERS); do \
		rm -rf $(BUILD)/sparse-$$k && mkdir -p $(BUILD)/sparse-$$k && \
		cp -rs $(TOP)/kmod $(TOP)/include $(TOP)/Kbuild $(BUILD)/sparse-$$k/ && \
		$(MAKE) -s -C /lib/modules/$$k/build M=$(BUILD)/sparse-$$k C=2 \
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

# Kernel tools we borrow (checkpatch, ynl-gen) come from Debian's
# linux-source-6.12; extract only what we need.
$(BUILD)/tools/.stamp:
	@rm -rf $(BUILD)/tools && mkdir -p $(BUILD)/tools
	tar -xf /usr/src/linux-source-6.12.tar.xz -C $(BUILD)/tools \
		--strip-components=1 --wildcards \
		'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' \
		'*/scripts/const_structs.checkpatch' '*/tools/net/ynl/*' \
		'*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h' \
		'*/Documentation/netlink/*.yaml' '*/MAINTAINERS'
	@# ECT (ECN-capable transport) is a word here, not a typo of "etc"
	grep -v '^ect->' /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt \
		> $(BUILD)/tools/codespell.txt
	@touch $@

clean:
	rm -rf $(BUILD)
	$(MAKE) -C $(TOP)/user clean
	$(MAKE) -C $(TOP)/selftests clean
