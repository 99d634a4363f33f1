// The size limit of one instance.  Kernels index an instance's rows with int (the fast index
// type on a GPU), so every row count is first counted in 64 bits here and the model refused
// when an instance would need more rows than int indexing (with i (i + 1) for packed H) allows.
#pragma once

#include <cstdint>

namespace zwang {

// rows of the data, parameter and work arenas of one instance together (8 GiB in float64)
inline constexpr std::int64_t kMaxInstanceRows = std::int64_t{1} << 30;

// keyframes of a model, and their values together (128 MiB): a model's own arrays are shared
// by every instance, but a count in a file must not allocate without bound
inline constexpr int kMaxKeyframes = 100000;
inline constexpr std::int64_t kMaxKeyframeValues = std::int64_t{1} << 24;

// The rows one instance needs, counted in 64 bits; ModelError "model: ..." naming the
// largest fields when they exceed kMaxInstanceRows.  `njac` is Σ_k (ancestor dofs of body k).
std::int64_t check_instance_rows(std::int64_t nq, std::int64_t nv, std::int64_t nu,
                                 std::int64_t nbody, std::int64_t njnt, std::int64_t njac,
                                 std::int64_t nefc = 0, std::int64_t nhard = 0,
                                 std::int64_t ndrive = 0, std::int64_t ngeom = 0,
                                 std::int64_t nconmax = 0, std::int64_t ncon_rows = 0,
                                 std::int64_t nsensor = 0, std::int64_t nsensordata = 0,
                                 std::int64_t nsensorbody = 0, std::int64_t nmocap = 0,
                                 std::int64_t ntendon = 0, std::int64_t na = 0);

}  // namespace zwang
