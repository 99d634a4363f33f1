#include "cuda/plan.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "cuda/launch.hpp"

namespace zwang::gpu {

std::int64_t blocks_for(std::int64_t count, int block) {
  return (count + block - 1) / block;
}

int spread_block(std::int64_t count, int block, int sms) {
  constexpr int kWarp = 32;
  if (block < 1 || sms < 1) {
    throw std::invalid_argument(
        fmt::format("spread_block needs block >= 1 and sms >= 1 (got {}, {})", block, sms));
  }
  if (count >= static_cast<std::int64_t>(block) * sms || block <= kWarp) return block;
  const std::int64_t per_sm = count / sms / kWarp * kWarp;
  return static_cast<int>(std::clamp<std::int64_t>(per_sm, kWarp, block));
}

std::vector<LaunchRange> split_launches(std::int64_t n, int block, std::int64_t max_blocks) {
  if (block < 1 || max_blocks < 1) {
    throw std::invalid_argument(
        fmt::format("launch needs block >= 1 and max_blocks >= 1 (got {}, {})", block, max_blocks));
  }
  std::vector<LaunchRange> out;
  const std::int64_t most = static_cast<std::int64_t>(block) * max_blocks;
  for (std::int64_t begin = 0; begin < n; begin += most) {
    out.push_back({begin, std::min(most, n - begin)});
  }
  return out;
}

void check_cuda_options(const SimulatorOptions& options) {
  if (options.device < 0) {
    throw std::invalid_argument(fmt::format("device must be >= 0 (got {})", options.device));
  }
  if (options.cusolver_min_nv < 1) {
    throw std::invalid_argument(
        fmt::format("cusolver_min_nv must be >= 1 (got {})", options.cusolver_min_nv));
  }
  const int group = static_cast<int>(options.cuda_group);
  if (group != 0 && group != 1 && group != 16 && group != 32) {
    throw std::invalid_argument(
        fmt::format("cuda_group must be kAuto, kOne, k16 or k32 (got {})", group));
  }
  if (group > 1 && options.cholesky == CholeskyPath::kCusolver) {
    throw std::invalid_argument(fmt::format(
        "cuda_group {} factors H in the kernel: it cannot run with CholeskyPath::kCusolver",
        group));
  }
  if (group > 1 && options.kernels == CudaKernels::kStaged) {
    throw std::invalid_argument(fmt::format(
        "cuda_group {} runs the whole step in one kernel: it cannot run with CudaKernels::kStaged",
        group));
  }
}

// One thread per instance until the group kernels' rates by instance count are measured on a
// GPU (bench/README.md, "Lane groups"): a default that no measurement backs would risk the
// path every user takes.
int choose_group(CudaGroup requested) {
  return requested == CudaGroup::kAuto ? 1 : static_cast<int>(requested);
}

int group_tile_values(const Layout& lay) {
  return (lay.data_rows + lay.param_rows) | 1;
}

int group_instances_per_block(std::int64_t n, int sms, const GroupBlockChoices& resident) {
  int best = -1;
  for (int j = 0; j < kGroupBlockChoices; ++j) {
    if (resident[j] > 0 && (best < 0 || resident[j] >= resident[best])) best = j;
  }
  if (best < 0) {
    throw std::invalid_argument(
        "no block of a lane-group kernel fits on a multiprocessor (registers or shared memory)");
  }
  // n / 2^j blocks: no fewer than the multiprocessors while a smaller block can hold instances
  while (best > 0 && resident[best - 1] > 0 && (n >> best) < sms) --best;
  return 1 << best;
}

// The threshold is SimulatorOptions::cusolver_min_nv, provisional until measured by
// bench_gpu's threshold/ sweep (bench/README.md, "Measuring the cuSOLVER threshold").
CholeskyPath choose_cholesky(CholeskyPath requested, int nv, int cusolver_min_nv, int group,
                             bool implicit_fast) {
  if (implicit_fast && requested == CholeskyPath::kCusolver) {
    throw std::invalid_argument(
        "CholeskyPath::kCusolver factors H + h diag(damping): the implicitfast and implicit "
        "integrators' matrix is factored in the kernel (use kAuto or kInKernel)");
  }
  if (requested != CholeskyPath::kAuto) return requested;
  if (group > 1 || implicit_fast) return CholeskyPath::kInKernel;
  return nv >= cusolver_min_nv ? CholeskyPath::kCusolver : CholeskyPath::kInKernel;
}

std::size_t cusolver_values_per_instance(int nv) {
  const std::size_t n = static_cast<std::size_t>(nv);
  return 2 * n * n + 2 * n;
}

std::int64_t cusolver_chunk(int nv, std::size_t scalar_bytes, std::int64_t padded_n,
                            std::size_t budget_bytes) {
  const std::size_t per_instance = cusolver_values_per_instance(nv) * scalar_bytes + sizeof(int);
  const std::int64_t fit = static_cast<std::int64_t>(budget_bytes / per_instance);
  const std::int64_t chunk = std::max<std::int64_t>(32, fit / 32 * 32);
  return std::min(chunk, padded_n);
}

namespace {

// one entry of CMake's CUDA_ARCHITECTURES: 90, 90-real, 90-virtual, 90a, 100f
struct Architecture {
  int number = 0;
  bool real = true;       // SASS
  bool virtual_ = true;   // PTX
  bool specific = false;  // "a" or "f": this compute capability only
};

bool parse_architecture(std::string_view text, Architecture& a) {
  const char* end = text.data() + text.size();
  auto [p, ec] = std::from_chars(text.data(), end, a.number);
  if (ec != std::errc() || a.number <= 0) return false;
  std::string_view rest(p, static_cast<std::size_t>(end - p));
  if (!rest.empty() && (rest.front() == 'a' || rest.front() == 'f')) {
    a.specific = true;
    rest.remove_prefix(1);
  }
  if (rest == "-real") {
    a.virtual_ = false;
  } else if (rest == "-virtual") {
    a.real = false;
  } else if (!rest.empty()) {
    return false;
  }
  return true;
}

}  // namespace

bool architectures_cover(std::string_view architectures, int major, int minor) {
  const int cc = 10 * major + minor;
  while (!architectures.empty()) {
    const std::size_t cut = architectures.find_first_of(";,");
    std::string_view item = architectures.substr(0, cut);
    architectures.remove_prefix(cut == std::string_view::npos ? architectures.size() : cut + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    // CMake's keywords: code for every architecture, or for the build machine's own GPU
    if (item == "all" || item == "all-major" || item == "native") return true;
    Architecture a;
    if (!parse_architecture(item, a)) continue;
    if (a.specific) {
      if (cc == a.number) return true;
      continue;
    }
    if (a.real && cc / 10 == a.number / 10 && cc >= a.number) return true;
    if (a.virtual_ && cc >= a.number) return true;
  }
  return false;
}

std::string no_device_reason(std::string_view detail) {
  return fmt::format("no CUDA device: {}", detail);
}

}  // namespace zwang::gpu
