# SPDX-License-Identifier: GPL-2.0
# srpt-cxx: top-level targets. See README.md.
#
#   make           build ib_srpt.ko against Debian 12's kernel headers
#   make check     host unit tests, module build and checks, guest tests
#   make check-long  the data-path I/O guest cases with eight times the data
#   make demo      boot a guest with the module and show what it serves
#   make fuzz      host libFuzzer targets, FUZZ_SECONDS (default 300) each
#   make fuzz-guest  the guest login fuzz campaign (cases 28 and 29, long)
#   make check-debug  every guest case on the project's debug kernel (KASAN,
#                  lockdep, kmemleak...; built once per machine, ~1 h)
#
# The kernel build directory comes from the installed Debian headers
# (linux-headers-*-amd64), never from `uname -r`: the build machine does not
# run Debian's kernel. Override with KDIR=/path/to/build/dir.

PROJECT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CXX := g++-12
# Resolved when a recipe runs, after deps may have installed the headers.
export KDIR
kdir = $$($(PROJECT)/scripts/kdir.sh)

.PHONY: all module module-check debug-kernel module-debug check-debug unit fuzz-check fuzz fuzz-guest tools vm-check vm-selftest check check-long demo bench deps clean

all: module

deps:
	$(PROJECT)/scripts/install-deps.sh build

module: deps
	@kdir=$(kdir); test -n "$$kdir" || { echo "no Debian kernel headers found (set KDIR=)"; exit 1; }; \
	echo "building against $$kdir"; \
	$(MAKE) -C "$$kdir" M=$(PROJECT) CXX=$(CXX) modules

module-check: module
	$(PROJECT)/scripts/check-module.sh $(PROJECT)/ib_srpt.ko

# The debug kernel (scripts/debug-kernel/): built once per machine, cached.
debug-kernel:
	$(PROJECT)/scripts/debug-kernel/build.sh >/dev/null

# ib_srpt.ko for the debug kernel, in build/debug-kernel/module/: Kbuild writes
# next to the sources, so it builds from a copy of them (rsync keeps their
# times, so a rebuild compiles only what changed); the top directory's
# ib_srpt.ko stays the default kernel's.
debug_module_dir := $(PROJECT)/build/debug-kernel/module
module-debug: deps debug-kernel
	@kdir=$$($(PROJECT)/scripts/debug-kernel/build.sh --cached)/build && \
	echo "building against $$kdir" && \
	mkdir -p $(debug_module_dir) && \
	rsync -a --delete --exclude=/build/ --exclude=/.git --exclude=/tests/ \
		--exclude='*.o' --exclude='*.ko' --exclude='.*.cmd' --exclude='*.mod' \
		--exclude='*.mod.c' --exclude=Module.symvers --exclude=modules.order \
		--exclude=srpt_compat.h \
		$(PROJECT)/ $(debug_module_dir)/ && \
	$(MAKE) -C "$$kdir" M=$(debug_module_dir) CXX=$(CXX) modules

# Every guest case on the debug kernel, after the detectors' self-test.
check-debug:
	$(PROJECT)/scripts/debug-kernel/check.sh

unit:
	$(PROJECT)/scripts/install-deps.sh unit
	$(MAKE) -j$$(nproc) --no-print-directory -C $(PROJECT)/tests/unit run

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
# srpt_test_ibcm.ko goes to TOOLS_KO_DIR: the default kernel's in build/tools,
# another kernel's elsewhere (scripts/vm/common.sh picks it per kernel).
TOOLS_KO_DIR ?= $(PROJECT)/build/tools
tools:
	$(PROJECT)/scripts/install-deps.sh vm
	mkdir -p $(PROJECT)/build/tools
	gcc -O2 -Wall -Wextra -Werror -o $(PROJECT)/build/tools/srp_login \
		$(PROJECT)/tests/tools/srp_login.c -lrdmacm -libverbs
	gcc -O2 -Wall -Wextra -Werror -pthread -o $(PROJECT)/build/tools/srp_initiator \
		$(PROJECT)/tests/tools/srp_initiator.c $(initiator_objs) -lrdmacm -libverbs
	gcc -O2 -Wall -Wextra -Werror -pthread -o $(PROJECT)/build/tools/login_fuzz \
		$(PROJECT)/tests/tools/login_fuzz.c $(initiator_objs) -lrdmacm -libverbs
	@# srpt_test_ibcm.ko, the IB/CM initiator (tests/tools/ibcm): Kbuild writes
	@# next to its sources, so it builds from a copy under build/tools/ibcm.
	@kdir=$(kdir); test -n "$$kdir" || { echo "no Debian kernel headers found (set KDIR=)"; exit 1; }; \
	mkdir -p $(TOOLS_KO_DIR)/ibcm && \
	cp $(PROJECT)/tests/tools/ibcm/Kbuild $(PROJECT)/tests/tools/ibcm/*.[ch] $(TOOLS_KO_DIR)/ibcm/ && \
	$(MAKE) -C "$$kdir" M=$(TOOLS_KO_DIR)/ibcm modules && \
	cp $(TOOLS_KO_DIR)/ibcm/srpt_test_ibcm.ko $(TOOLS_KO_DIR)/

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

# The data-path I/O cases with eight times the data (minutes under TCG).
check-long: module tools
	$(PROJECT)/scripts/install-deps.sh vm
	SRPT_IO_LONG=1 $(PROJECT)/tests/vm/run.sh --case-timeout 1800 --timeout 7200 45 46 47 48

demo: module
	$(PROJECT)/scripts/install-deps.sh vm
	$(PROJECT)/scripts/vm/demo.sh

# One guest boot: the floor, Debian's in-tree ib_srpt and ours (tests/bench/).
bench: module tools
	$(PROJECT)/tests/bench/run.sh

clean:
	-kdir=$(kdir); test -n "$$kdir" && $(MAKE) -C "$$kdir" M=$(PROJECT) clean
	-$(MAKE) -C $(PROJECT)/tests/unit clean
	rm -rf $(PROJECT)/build
