# SPDX-License-Identifier: GPL-2.0
# Kbuild rule for freestanding C++ objects (included from ../../Kbuild).
#
# C++ objects are compiled with the kernel's own C flags, less those that only
# mean something to C, so that they follow the same ABI (no red zone, kernel
# code model, no SSE, retpolines, return thunks, stack protector, fentry
# tracing). objtool runs on them as on C objects (ORC unwind data, retpoline
# and return-site tables), and if_changed_dep writes the .cmd file modpost
# needs. See ../shared notes "cxx-in-kbuild-facts".
#
# C++ sees no kernel header: -nostdinc and only our include/ directory.

CXX ?= g++-12
ifeq ($(origin CXX),default)
CXX := g++-12
endif

# The kernel's C flags, less those g++ refuses as C-only: asked of $(CXX)
# itself (cxx-flags.sh), once per Kbuild pass, since every kernel adds some.
# The sanitizers a debug kernel builds with (KASAN, UBSAN) are not in
# KBUILD_CFLAGS: scripts/Makefile.lib adds them per C object. C++ objects
# take them here, so that KASAN sees the core's accesses as it sees the
# shim's (both empty on a production kernel).
srpt_cxx_kflags := $(shell $(CONFIG_SHELL) $(src)/scripts/kbuild/cxx-flags.sh \
	$(CXX) $(KBUILD_CPPFLAGS) $(KBUILD_CFLAGS) \
	$(if $(CONFIG_KASAN),$(CFLAGS_KASAN)) $(if $(CONFIG_UBSAN),$(CFLAGS_UBSAN)))
ifeq ($(srpt_cxx_kflags),)
$(error $(CXX) accepts none of the kernel's C flags: see the message above)
endif

# pahole cannot encode C++ DWARF (template parameters, references) and the
# module's BTF is generated from all of its objects' DWARF, so where BTF is
# made (CONFIG_DEBUG_INFO_BTF_MODULES with the kernel's vmlinux at hand, as
# Makefile.modfinal requires) C++ objects carry none. The C shim keeps its
# BTF; the C++ core has no types a BPF program could use anyway.
srpt_cxx_debug :=
ifdef CONFIG_DEBUG_INFO_BTF_MODULES
ifneq ($(wildcard $(objtree)/vmlinux),)
srpt_cxx_debug := -g0
endif
endif

srpt_cxxflags = $(srpt_cxx_kflags) \
	-std=gnu++17 -nostdinc -I$(src)/include \
	-ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-fno-use-cxa-atexit -fno-asynchronous-unwind-tables \
	-fno-unwind-tables $(srpt_cxx_debug) \
	-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Werror

quiet_cmd_cxx_o_cpp = C++ $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(CXX) -Wp,-MMD,$(depfile) $(srpt_cxxflags) \
		      -c -o $@ $< $(cmd_objtool)

$(obj)/%.o: $(src)/%.cpp FORCE
	$(call if_changed_dep,cxx_o_cpp)
