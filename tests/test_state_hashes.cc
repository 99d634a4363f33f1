// The bits of every model case after 50 steps, held against hashes kept in the repository
// (tests/data/state_hashes/<compiler>.txt): a change that only moves code (the layout of host/, the
// field tables) must leave them as they are.  For each case of tests/model_cases.h, in float64
// and float32, on the scalar and the SIMD backend (which give the same bits), from seeded random
// states: a 64-bit FNV-1a hash of every data field (only the state of an instance that stopped),
// the times and the status words.  With ZWANG_WRITE_STATE_HASHES=1 the test writes the file
// instead of reading it (for a change that means to change the arithmetic, which its commit then
// says).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "kernels/status.h"
#include "model_cases.h"

namespace zwang::test {
namespace {

constexpr int kInstances = 19;  // two packs of 8 float64 lanes and a partial one
constexpr int kSteps = 50;

// FNV-1a over bytes
struct Fnv {
  std::uint64_t h = 14695981039346656037ull;
  void add(const void* data, std::size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < bytes; ++k) h = (h ^ p[k]) * 1099511628211ull;
  }
};

template <class T>
std::uint64_t state_hash(const Model& model, CpuSimd simd) {
  Simulator<T> sim(model, kInstances, {.threads = 1, .cpu_simd = simd});
  set_same_states(sim, sim, 7);
  sim.step(kSteps);
  const Batch<T>& b = std::as_const(sim).batch();
  Fnv fnv;
  for (std::int64_t i = 0; i < kInstances; ++i) {
    // a stopped instance's outputs are unspecified (its state, time and status are not)
    const bool stopped = (b.status()[i] & kStatusStopping) != 0;
    for (const FieldId f : data_fields()) {
      if (stopped && is_output(f)) continue;
      const FieldRef<const T> field = b.field(f);
      for (int j = 0; j < field.width(); ++j) {
        const T x = field(i, j);
        fnv.add(&x, sizeof x);
      }
    }
    fnv.add(&b.time()[i], sizeof(double));
    fnv.add(&b.status()[i], sizeof(int));
  }
  return fnv.h;
}

// the bits depend on the compiler (its choice among equivalent instruction sequences of the
// library's mathematics): one file of hashes per compiler and major version
std::string toolchain() {
#if defined(__clang__)
  return fmt::format("clang-{}", __clang_major__);
#elif defined(__GNUC__)
  return fmt::format("gcc-{}", __GNUC__);
#else
  return "other";
#endif
}

std::string hashes_file() {
  return (model_cases_dir() / "state_hashes" / (toolchain() + ".txt")).string();
}

std::map<std::string, std::string> read_hashes() {
  std::map<std::string, std::string> out;
  std::ifstream in(hashes_file());
  std::string key, hash;
  while (in >> key >> hash) out[key] = hash;
  return out;
}

TEST(StateHashes, EveryCaseKeepsItsBits) {
  const bool write = std::getenv("ZWANG_WRITE_STATE_HASHES") != nullptr;
  const std::map<std::string, std::string> kept = read_hashes();
  if (!write && kept.empty()) {
    GTEST_SKIP() << "no hashes kept for " << toolchain() << " (" << hashes_file()
                 << "): ZWANG_WRITE_STATE_HASHES=1 writes them";
  }
  std::ostringstream written;
  int checked = 0;
  for (const ModelCase& c : model_cases()) {
    for (const bool f32 : {false, true}) {
      const std::string key = fmt::format("{}_{}", c.name, f32 ? "f32" : "f64");
      const std::uint64_t scalar = f32 ? state_hash<float>(c.model, CpuSimd::kScalar)
                                       : state_hash<double>(c.model, CpuSimd::kScalar);
      const std::uint64_t simd = f32 ? state_hash<float>(c.model, CpuSimd::kAuto)
                                     : state_hash<double>(c.model, CpuSimd::kAuto);
      const std::string hash = fmt::format("{:016x}", scalar);
      EXPECT_EQ(simd, scalar) << key << ": the SIMD backend's bits differ from the scalar's";
      written << key << ' ' << hash << '\n';
      if (write) continue;
      const auto it = kept.find(key);
      if (it == kept.end()) {
        ADD_FAILURE() << key << " has no hash in " << hashes_file();
        continue;
      }
      EXPECT_EQ(hash, it->second) << key << ": the state after " << kSteps << " steps changed";
      ++checked;
    }
  }
  if (write) {
    std::ofstream(hashes_file()) << written.str();
    std::printf("wrote %s\n", hashes_file().c_str());
  } else {
    EXPECT_EQ(checked, static_cast<int>(kept.size())) << "cases kept but no longer run";
  }
}

}  // namespace
}  // namespace zwang::test
