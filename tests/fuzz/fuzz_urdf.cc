// libFuzzer target: URDF text through zwang::load_urdf_string, with and without a floating
// base, then the dynamics of what loads.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "fuzz_dynamics.hpp"
#include "zwang/loaders.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view xml(reinterpret_cast<const char*>(data), size);
  for (const bool floating_base : {false, true}) {
    std::optional<zwang::LoadResult> loaded;
    try {
      loaded = zwang::load_urdf_string(xml, {.floating_base = floating_base}, "fuzz.urdf");
    } catch (const zwang::ModelError&) {
      // the loader's documented error: malformed XML, bad numbers, cycles, unknown links
      return 0;
    }
    zwang::fuzz::run_dynamics(loaded->model);
  }
  return 0;
}
