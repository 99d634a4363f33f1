// The SIMD CPU backend for AVX-512 (compiled with -mavx512f -mavx512dq -mavx512vl -mavx512bw
// -mfma): 8 float64 or 16 float32 instances per register.
#define ZW_PACK_ISA_FUNCTION pack_isa_avx512
#define ZW_PACK_ISA_NAME "avx512"
#include "host/cpu/simd.inl"
