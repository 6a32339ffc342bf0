# SPDX-License-Identifier: GPL-2.0
# srpt-cxx: top-level targets. See README.md.
#
#   make           build ib_srpt.ko against Debian 12's kernel headers
#   make check     host unit tests, module build and checks, guest tests
#   make demo      boot a guest with the module and show what it serves
#
# The kernel build directory comes from the installed Debian headers
# (linux-headers-*-amd64), never from `uname -r`: the build machine does not
# run Debian's kernel. Override with KDIR=/path/to/build/dir.

PROJECT := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
CXX := g++-12
# Resolved when a recipe runs, after deps may have installed the headers.
export KDIR
kdir = $$($(PROJECT)/scripts/kdir.sh)

.PHONY: all module module-check unit tools vm-check vm-selftest check demo bench deps clean

all: module

deps:
	$(PROJECT)/scripts/install-deps.sh build

module: deps
	@kdir=$(kdir); test -n "$$kdir" || { echo "no Debian kernel headers found (set KDIR=)"; exit 1; }; \
	echo "building against $$kdir"; \
	$(MAKE) -C "$$kdir" M=$(PROJECT) CXX=$(CXX) modules

module-check: module
	$(PROJECT)/scripts/check-module.sh $(PROJECT)/ib_srpt.ko

unit:
	$(PROJECT)/scripts/install-deps.sh unit
	$(MAKE) -j$$(nproc) --no-print-directory -C $(PROJECT)/tests/unit run

# Test tools the guest cases run (userspace, built on the host).
tools:
	$(PROJECT)/scripts/install-deps.sh vm
	mkdir -p $(PROJECT)/build/tools
	gcc -O2 -Wall -Wextra -Werror -o $(PROJECT)/build/tools/srp_login \
		$(PROJECT)/tests/tools/srp_login.c -lrdmacm -libverbs
	gcc -O2 -Wall -Wextra -Werror -pthread -o $(PROJECT)/build/tools/srp_initiator \
		$(PROJECT)/tests/tools/srp_initiator.c $(PROJECT)/tests/tools/rdma_cm.c \
		$(if $(wildcard $(PROJECT)/tests/tools/ib_cm.c),$(PROJECT)/tests/tools/ib_cm.c,-DTI_NO_IB_CM) \
		-lrdmacm -libverbs

vm-check: module tools
	$(PROJECT)/scripts/install-deps.sh vm
	$(PROJECT)/tests/vm/suite.sh

vm-selftest:
	$(PROJECT)/scripts/install-deps.sh vm
	$(PROJECT)/tests/vm/selftest.sh

check:
	$(PROJECT)/scripts/check.sh

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
