// SPDX-License-Identifier: GPL-2.0
// What g++ expects from a C++ runtime, for the kernel build only (the host
// build links the real C++ library instead).
//
// Global operator delete: virtual destructors make g++ emit "deleting
// destructors" that reference the sized form even if the core never uses
// `delete`, so both forms exist and free through the shim. There is no global
// operator new without an allocation context (see include/srpt/rt/new.h).
#include <srpt/abi/alloc.h>
#include <srpt/abi/log.h>
#include <srpt/rt/types.h>

#if !defined(__KERNEL__)
#error "kernel-only runtime support"
#endif

void operator delete(void* p) noexcept { srpt_kfree(p); }
void operator delete(void* p, srpt::usize) noexcept { srpt_kfree(p); }
void operator delete[](void* p) noexcept { srpt_kfree(p); }
void operator delete[](void* p, srpt::usize) noexcept { srpt_kfree(p); }

extern "C" {

// The Itanium C++ ABI's declaration (<cxxabi.h> in a hosted build); the
// compiler calls it by name, no header of ours does.
void __cxa_pure_virtual();

// Called through a vtable slot of an abstract class: only possible when an
// object is used during its construction or destruction, or is corrupted.
void __cxa_pure_virtual() { srpt_trap_pure_virtual(); }

}  // extern "C"
