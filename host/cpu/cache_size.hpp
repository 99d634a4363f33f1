// The cache sizes the SIMD CPU backend sizes its choices by (host/cpu/backend.cc): what it
// prefetches, and when its outputs bypass the caches.
#pragma once

#include <cstddef>

namespace zwang {

// the L2 of one core as the C library reports it, 1 MiB where it cannot tell
std::size_t l2_bytes();

// One L3, the last-level cache that the first core shares with its neighbours, as Linux's sysfs
// describes it ("32768K"): glibc's sysconf gives the sum over a socket's L3s on some AMD CPUs
// (384 MiB on a 2-core EPYC VM whose core sees 32 MiB).  Else the C library's figure, else
// 32 MiB.
std::size_t l3_bytes();

}  // namespace zwang
