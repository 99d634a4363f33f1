// libFuzzer target: MJCF text through zwang::load_mjcf_string, then the dynamics of what loads.
// <include> resolves against tests/data/models, where the seeds' included parts live.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fuzz_dynamics.hpp"
#include "zwang/loaders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  std::optional<zwang::LoadResult> loaded;
  try {
    loaded = zwang::load_mjcf_string(xml, "fuzz.xml", ZWANG_FUZZ_MODEL_DIR);
  } catch (const zwang::ModelError&) {
    // the loader's documented error: malformed, unsupported or inconsistent input
    return 0;
  }
  zwang::fuzz::run_dynamics(loaded->model);
  return 0;
}
