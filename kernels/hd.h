// Host/device qualifiers for the per-instance physics in kernels/.
#pragma once

#if defined(__CUDACC__)
#define ZW_HD __host__ __device__
#define ZW_INLINE __forceinline__
#else
#define ZW_HD
#define ZW_INLINE inline
#endif
