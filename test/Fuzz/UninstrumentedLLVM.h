//===- UninstrumentedLLVM.h - LLVM headers over an uninstrumented LLVM ----===//
//
// Part of the Lamport project.
//
//===----------------------------------------------------------------------===//
//
// Force-included into every compiler source of the fuzz build. LLVM's
// headers assume that a TU built with AddressSanitizer belongs to an LLVM
// built with it too: their inline allocators (BumpPtrAllocator, the
// recyclers) poison the free part of each slab and unpoison each
// allocation. Debian's libMLIR.so and libLLVM.so are not instrumented, and
// share those allocators with our code: a slab our code started (poisoned
// whole) then hands out memory through libMLIR's own, uninstrumented copy
// of Allocate, which never unpoisons it, and the next memcpy into it is
// reported as a use-after-poison that is not one. Without the annotations,
// ASan still checks every access of our code against real allocations.
//
//===----------------------------------------------------------------------===//

#ifndef LAMPORT_TEST_FUZZ_UNINSTRUMENTEDLLVM_H
#define LAMPORT_TEST_FUZZ_UNINSTRUMENTEDLLVM_H

#if defined(__has_include) && __has_include(<sanitizer/asan_interface.h>)
#include <sanitizer/asan_interface.h>
#endif
#define __asan_poison_memory_region(addr, size) ((void)(addr), (void)(size))
#define __asan_unpoison_memory_region(addr, size) ((void)(addr), (void)(size))

#endif // LAMPORT_TEST_FUZZ_UNINSTRUMENTEDLLVM_H
