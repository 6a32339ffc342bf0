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

# C-only options g++ rejects or warns about ("valid for C/ObjC but not for C++").
srpt_cxx_drop := -std=gnu11 -std=gnu89 -Wno-pointer-sign \
	-Werror=designated-init -Werror=implicit-function-declaration \
	-Werror=implicit-int -Werror=incompatible-pointer-types \
	-Werror=strict-prototypes -Wstrict-prototypes \
	-Wdeclaration-after-statement -Wmissing-prototypes \
	-Wold-style-definition -Wno-old-style-declaration \
	-Wmissing-parameter-type -Wnested-externs -Wno-main \
	-Werror=return-type

srpt_cxxflags = $(KBUILD_CPPFLAGS) \
	$(filter-out $(srpt_cxx_drop),$(KBUILD_CFLAGS)) \
	-std=gnu++17 -nostdinc -I$(src)/include \
	-ffreestanding -fno-exceptions -fno-rtti -fno-threadsafe-statics \
	-fno-use-cxa-atexit -fno-asynchronous-unwind-tables \
	-fno-unwind-tables \
	-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Werror

quiet_cmd_cxx_o_cpp = C++ $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(CXX) -Wp,-MMD,$(depfile) $(srpt_cxxflags) \
		      -c -o $@ $< $(cmd_objtool)

$(obj)/%.o: $(src)/%.cpp FORCE
	$(call if_changed_dep,cxx_o_cpp)
