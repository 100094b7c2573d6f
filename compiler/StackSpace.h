// How much of the calling thread's stack is left, for the recursive walks
// whose depth the kernel's source decides (the tile IR generator over
// calls, blocks and expressions; the interpreter over nested regions):
// they stop with an error at the source line while the stack still has
// room, instead of overflowing it.
#pragma once

#include <cstdint>
#include <pthread.h>

namespace tilec {

/// Stack kept free below the frame that checks, for what runs beneath it
/// without a check of its own (a builtin building its IR, the semantic
/// check of a callee, MLIR's builders, one op of the interpreter).
/// AddressSanitizer's frames are two to three times larger.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr uintptr_t kStackReserve = uintptr_t(3) << 20;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr uintptr_t kStackReserve = uintptr_t(3) << 20;
#else
inline constexpr uintptr_t kStackReserve = uintptr_t(1) << 20;
#endif
#else
inline constexpr uintptr_t kStackReserve = uintptr_t(1) << 20;
#endif

/// True when fewer than kStackReserve bytes of the calling thread's stack
/// are left below the caller. False where the stack's bounds are unknown.
inline bool stackNearlyExhausted() {
  static thread_local uintptr_t low = [] {
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
      return uintptr_t(0);
    void *addr = nullptr;
    size_t size = 0;
    int error = pthread_attr_getstack(&attr, &addr, &size);
    pthread_attr_destroy(&attr);
    return error ? uintptr_t(0) : uintptr_t(addr);
  }();
  uintptr_t here = uintptr_t(__builtin_frame_address(0));
  return low && here > low && here - low < kStackReserve;
}

} // namespace tilec
