# SPDX-License-Identifier: GPL-2.0
# srpt-cxx: top-level targets. See README.md.
#
#   make           build ib_srpt.ko against Debian 12's kernel headers
#   make KVER=6.12 build (and, with the targets below, test) for another kernel
#                  of scripts/kernel/kernels: 6.1 (default), 6.12, 7.3, or an ABI
#   make check     host unit tests, module build and checks, guest tests
#                  (every kernel: scripts/check.sh says which cases where)
#   make check-kernels  every guest case on every kernel
#   make check-long  the data-path I/O guest cases with eight times the data,
#                  and the closes during RDMA in parts (case 59) 20 times each
#   make demo      boot a guest with the module and show what it serves
#   make fuzz      host libFuzzer targets, FUZZ_SECONDS (default 300) each
#   make fuzz-guest  the guest login fuzz campaign (cases 28 and 29, long)
#   make threads   host tests on real threads under ThreadSanitizer
#   make check-debug  every guest case on the project's debug kernel (KASAN,
#                  lockdep, kmemleak...; the kernel built once per machine)
#
# The kernel is always chosen explicitly: KVER, else Debian 12's default ABI
# (scripts/default-kver.sh), never the newest headers installed and never
# `uname -r` (the build machine does not run Debian's kernel). KVER may name a
# kernel of scripts/kernel/kernels (6.1, 6.12, 7.3) or give its ABI; every
# script below gets the ABI. scripts/kernel/kmake.sh runs Kbuild for it, on
# the host or in the cached trixie chroot (7.3), with the g++ matching the
# kernel's gcc. KDIR=/path/to/build/dir still overrides the headers (host).

PROJECT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
ifneq ($(KVER),)
override KVER := $(shell $(PROJECT)/scripts/kernel/info.sh '$(KVER)' abi)
endif
export KVER KDIR
kmake = $(PROJECT)/scripts/kernel/kmake.sh
# The ABI, resolved when a recipe runs (a fresh machine installs the default
# headers first).
kabi = $$($(PROJECT)/scripts/kernel/info.sh "$(KVER)" abi)
# MODULE_VERSION, worked out here because Kbuild may run in a chroot
# without git (scripts/install/version.sh); `=`, so that only the recipes
# that build the module run it, not every make invocation.
srpt_version = $(shell $(PROJECT)/scripts/install/version.sh)

.PHONY: all module module-check install uninstall install-check deb deb-check module-fallback debug-kernel module-debug check-debug unit threads fuzz-check fuzz fuzz-guest tools vm-check vm-selftest check check-kernels check-package check-long demo bench deps clean

all: module

deps:
	$(PROJECT)/scripts/install-deps.sh build

# ./ib_srpt.ko is the last build; build/kernels/<abi>/ keeps each kernel's
# module and the outcome of its feature probes (srpt_compat.h).
module:
	@abi=$(kabi); echo "building ib_srpt.ko for $$abi"; \
	$(kmake) $(PROJECT) modules SRPT_VERSION='$(srpt_version)' && \
	if [ -n "$$SRPT_PROBE_ABSENT" ]; then echo "probes forced absent: $$SRPT_PROBE_ABSENT"; exit 0; fi && \
	mkdir -p $(PROJECT)/build/kernels/$$abi && \
	cp $(PROJECT)/ib_srpt.ko $(PROJECT)/src/shim/srpt_compat.h $(PROJECT)/build/kernels/$$abi/ && \
	echo "probes for $$abi:" $$(sed -n 's/^#define SRPT_HAVE_\([A-Z0-9_]*\) 1$$/\1/p' $(PROJECT)/src/shim/srpt_compat.h)

module-check: module
	$(PROJECT)/scripts/check-module.sh $(PROJECT)/ib_srpt.ko

# The module of KVER into /lib/modules/<abi>/updates/ (DESTDIR: another
# root), where depmod prefers it to the in-tree driver; uninstall takes it
# out again (scripts/install/install.sh).
install: module
	@abi=$(kabi); $(PROJECT)/scripts/install/install.sh install $$abi $(PROJECT)/build/kernels/$$abi/ib_srpt.ko

uninstall:
	@abi=$(kabi); $(PROJECT)/scripts/install/install.sh uninstall $$abi

# install/uninstall into a scratch root: ours wins over an in-tree module
# there, and the in-tree one is back after uninstall (tests/install/).
install-check:
	@abi=$(kabi); $(PROJECT)/tests/install/install-test.sh $$abi $(PROJECT)/build/kernels/$$abi/ib_srpt.ko

# srpt-cxx-dkms_<version>_all.deb of the current commit, lintian-checked
# (scripts/deb/); deb-check also has DKMS build the packaged source for
# KVER in scratch trees and checks that unbuildable kernels are refused.
deb:
	$(PROJECT)/scripts/deb/build.sh

deb-check:
	@abi=$(kabi); $(PROJECT)/tests/install/deb-test.sh $$abi

# The debug kernel (scripts/debug-kernel/): built once per machine, cached.
debug-kernel:
	$(PROJECT)/scripts/debug-kernel/build.sh >/dev/null

# ib_srpt.ko for the debug kernel, kept in build/kernels/<its kver>/ (where
# tests/vm/run.sh looks first): Kbuild writes next to the sources, so it
# builds from a copy of them in build/debug-kernel/module (rsync keeps their
# times, so a rebuild compiles only what changed), and the top directory's
# ib_srpt.ko stays the last host build's.
debug_module_dir := $(PROJECT)/build/debug-kernel/module
module-debug: deps debug-kernel
	@dir=$$($(PROJECT)/scripts/debug-kernel/build.sh --cached) && abi=$$(cat $$dir/kver) && \
	echo "building ib_srpt.ko for $$abi (debug kernel, $$dir/build)" && \
	mkdir -p $(debug_module_dir) $(PROJECT)/build/kernels/$$abi && \
	rsync -a --delete --exclude=/build/ --exclude=/.git --exclude=/tests/ \
		--exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude=Module.symvers --exclude=modules.order \
		--exclude=srpt_compat.h \
		$(PROJECT)/ $(debug_module_dir)/ && \
	KVER=$$abi KDIR=$$dir/build $(kmake) $(debug_module_dir) modules SRPT_VERSION='$(srpt_version)' && \
	cp $(debug_module_dir)/ib_srpt.ko $(PROJECT)/build/kernels/$$abi/

# Every guest case on the debug kernel, after the detectors' self-test.
check-debug:
	$(PROJECT)/scripts/debug-kernel/check.sh

# The fallbacks of every feature probe, built and checked on a kernel that
# has the features (Debian's kernels all do today): the module as a kernel
# without them gets it. Not kept in build/kernels/.
module-fallback:
	SRPT_PROBE_ABSENT="$$(sed -n 's/^have \([A-Z0-9_]*\) .*/\1/p' $(PROJECT)/scripts/kbuild/probe.sh | tr '\n' ' ')" \
		$(MAKE) --no-print-directory -C $(PROJECT) module-check
	@! grep '^#define SRPT_HAVE_' $(PROJECT)/src/shim/srpt_compat.h || \
		{ echo "module-fallback: a probe was not forced absent"; echo "0 passed, 1 failed"; exit 1; }

unit:
	$(PROJECT)/scripts/install-deps.sh unit
	$(MAKE) -j$$(nproc) --no-print-directory -C $(PROJECT)/tests/unit run

# The core's concurrent pieces on real threads, under ThreadSanitizer, and
# the self-test that proves each of those tests can fail (tests/threads/).
threads:
	$(PROJECT)/scripts/install-deps.sh unit
	$(MAKE) -j$$(nproc) --no-print-directory -C $(PROJECT)/tests/threads run

# Host libFuzzer targets (tests/fuzz): replay the corpus and fuzz each target
# for FUZZ_SECONDS; fuzz-check is the short run `make check` does (20 s each).
fuzz-check:
	$(PROJECT)/scripts/install-deps.sh fuzz
	$(MAKE) -j$$(nproc) --no-print-directory -C $(PROJECT)/tests/fuzz build
	$(MAKE) --no-print-directory -C $(PROJECT)/tests/fuzz check FUZZ_SECONDS=$(or $(FUZZ_SECONDS),20)

fuzz:
	$(PROJECT)/scripts/install-deps.sh fuzz
	$(MAKE) -j$$(nproc) --no-print-directory -C $(PROJECT)/tests/fuzz build
	$(MAKE) --no-print-directory -C $(PROJECT)/tests/fuzz check FUZZ_SECONDS=$(or $(FUZZ_SECONDS),300)

# Test tools the guest cases run (userspace, built on the host). The test
# initiator's back ends (tests/tools/initiator.h) serve two programs.
initiator_objs = $(addprefix $(PROJECT)/tests/tools/,initiator.c rdma_cm.c ib_cm.c)
tools:
	$(PROJECT)/scripts/install-deps.sh vm
	mkdir -p $(PROJECT)/build/tools
	gcc -O2 -Wall -Wextra -Werror -o $(PROJECT)/build/tools/srp_login \
		$(PROJECT)/tests/tools/srp_login.c -lrdmacm -libverbs
	gcc -O2 -Wall -Wextra -Werror -pthread -o $(PROJECT)/build/tools/srp_initiator \
		$(PROJECT)/tests/tools/srp_initiator.c $(initiator_objs) -lrdmacm -libverbs
	gcc -O2 -Wall -Wextra -Werror -pthread -o $(PROJECT)/build/tools/login_fuzz \
		$(PROJECT)/tests/tools/login_fuzz.c $(initiator_objs) -lrdmacm -libverbs
	gcc -O2 -Wall -Wextra -Werror -o $(PROJECT)/build/tools/dm_query \
		$(PROJECT)/tests/tools/dm_query.c -libumad
	@# srpt_test_ibcm.ko, the IB/CM initiator (tests/tools/ibcm), one per
	@# kernel in build/tools/<abi>/ (the guest looks under its uname -r):
	@# Kbuild writes next to its sources, so it builds from a copy.
	@abi=$(kabi); b=$(PROJECT)/build/tools/ibcm-$$abi; \
	mkdir -p $$b $(PROJECT)/build/tools/$$abi && \
	cp $(PROJECT)/tests/tools/ibcm/Kbuild $(PROJECT)/tests/tools/ibcm/*.[ch] $$b/ && \
	$(kmake) $$b modules && \
	cp $$b/srpt_test_ibcm.ko $(PROJECT)/build/tools/$$abi/

# The guest login fuzz campaign: cases 28 (RDMA/CM) and 29 (IB/CM) in one
# guest with FUZZ_GUEST_RDMA / FUZZ_GUEST_IB logins (default 10000 / 2000),
# FUZZ_GUEST_PARALLEL at a time (4), seed FUZZ_GUEST_SEED (2; make check's
# slice uses 1), each campaign failing if FUZZ_GUEST_SECONDS (900) pass first.
fuzz-guest: module tools
	$(PROJECT)/scripts/install-deps.sh vm
	SRPT_CASE_LOGIN_FUZZ_RDMA=$(or $(FUZZ_GUEST_RDMA),10000) \
	SRPT_CASE_LOGIN_FUZZ_IB=$(or $(FUZZ_GUEST_IB),2000) \
	SRPT_CASE_LOGIN_FUZZ_SEED=$(or $(FUZZ_GUEST_SEED),2) \
	SRPT_CASE_LOGIN_FUZZ_PARALLEL=$(or $(FUZZ_GUEST_PARALLEL),4) \
	SRPT_CASE_LOGIN_FUZZ_SECONDS=$(or $(FUZZ_GUEST_SECONDS),900) \
		$(PROJECT)/tests/vm/run.sh --out $(PROJECT)/build/vm/runs/fuzz-guest \
		--case-timeout $$(( $(or $(FUZZ_GUEST_SECONDS),900) + 300 )) \
		--timeout $$(( 2 * $(or $(FUZZ_GUEST_SECONDS),900) + 1200 )) 28 29

vm-check: module tools
	$(PROJECT)/scripts/install-deps.sh vm
	$(PROJECT)/tests/vm/suite.sh

vm-selftest: module
	$(PROJECT)/scripts/install-deps.sh vm
	$(PROJECT)/tests/vm/selftest.sh

check:
	$(PROJECT)/scripts/check.sh

# Guest case 60 (the Debian package installed, upgraded, restored, removed,
# DKMS building in the guest) on each kernel whose headers the guest's root
# has (6.1 and 6.12; on 7.3 it says why it skips).
check-package:
	$(PROJECT)/scripts/install-deps.sh vm deb
	$(PROJECT)/scripts/check-package.sh

# Every guest case on every kernel of scripts/kernel/kernels (long).
check-kernels:
	SRPT_CHECK_FULL=all $(PROJECT)/scripts/check.sh

# The data-path I/O cases with eight times the data (minutes under TCG).
check-long: module tools
	$(PROJECT)/scripts/install-deps.sh vm
	SRPT_IO_LONG=1 $(PROJECT)/tests/vm/run.sh --case-timeout 1800 --timeout 7200 45 46 47 48
	SRPT_CASE_PARTS_ROUNDS=20 $(PROJECT)/tests/vm/run.sh --out $(PROJECT)/build/vm/runs/check-long-59 \
		--case-timeout 5000 --timeout 5400 59

demo: module
	$(PROJECT)/scripts/install-deps.sh vm
	$(PROJECT)/scripts/vm/demo.sh

# One guest boot: the floor, Debian's in-tree ib_srpt and ours (tests/bench/).
bench: module tools
	$(PROJECT)/tests/bench/run.sh

clean:
	-$(kmake) $(PROJECT) clean
	-$(MAKE) -C $(PROJECT)/tests/unit clean
	-$(MAKE) -C $(PROJECT)/tests/threads clean
	rm -rf $(PROJECT)/build
