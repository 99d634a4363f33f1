// The SIMD CPU backend for AVX2 with FMA (compiled with -mavx2 -mfma): 4 float64 or 8 float32
// instances per register.
#define ZW_PACK_ISA_FUNCTION pack_isa_avx2
#define ZW_PACK_ISA_NAME "avx2"
#include "host/cpu/simd.inl"
