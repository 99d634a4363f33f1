// Host/device qualifiers for the per-instance physics in kernels/.
#pragma once

// ZW_NOINLINE keeps a large stage out of its callers on a GPU, so that its registers and local
// arrays do not add to theirs (ptxas allocates a called function's registers on its own)
#if defined(__CUDACC__)
#define ZW_HD __host__ __device__
#define ZW_INLINE __forceinline__
#define ZW_NOINLINE __noinline__
#else
#define ZW_HD
#define ZW_INLINE inline
#define ZW_NOINLINE
#endif
