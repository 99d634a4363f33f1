// Host/device qualifiers for the per-instance physics in kernels/.
#pragma once

// ZW_NOINLINE keeps a large stage out of its callers on a GPU, so that its registers and local
// arrays do not add to theirs (ptxas allocates a called function's registers on its own).
// ZW_INLINE is forced on the CPU as well: GCC's heuristics leave some small helpers (a cross
// product, a rotation, a load of a row) out of line once they have enough callers, and a call
// passes a SIMD pack's vectors through memory; forced, the AVX2 SIMD step runs 15–21 % fewer
// instructions (callgrind, docs/performance.md).
// ZW_ITEM forces a lambda handed to a lane group (kernels/group.h) into its caller as well,
// `[&](int i) ZW_ITEM { ... }`: out of line, its captures are reached through the closure, and
// every store of a SIMD pack (compiled without strict aliasing) reloads them.
#if defined(__CUDACC__)
#define ZW_HD __host__ __device__
#define ZW_INLINE __forceinline__
#define ZW_NOINLINE __noinline__
#define ZW_ITEM
#elif defined(__GNUC__)
#define ZW_HD
#define ZW_INLINE inline __attribute__((always_inline))
#define ZW_NOINLINE
#define ZW_ITEM __attribute__((always_inline))
#else
#define ZW_HD
#define ZW_INLINE inline
#define ZW_NOINLINE
#define ZW_ITEM
#endif
