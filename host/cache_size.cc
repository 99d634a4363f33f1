#include "cache_size.hpp"

#include <fmt/format.h>
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include <cstdlib>
#include <fstream>
#include <string>

namespace zwang {
namespace {

// sysconf's figure where the C library has one (glibc), else 0
[[maybe_unused]] std::size_t from_sysconf(int name) {
#if __has_include(<unistd.h>)
  const long bytes = sysconf(name);
  return bytes > 0 ? static_cast<std::size_t>(bytes) : 0;
#else
  return 0;
#endif
}

}  // namespace

std::size_t l2_bytes() {
  static const std::size_t bytes = [] {
    std::size_t b = 0;
#if defined(_SC_LEVEL2_CACHE_SIZE)
    b = from_sysconf(_SC_LEVEL2_CACHE_SIZE);
#endif
    return b > 0 ? b : std::size_t{1} << 20;
  }();
  return bytes;
}

std::size_t l3_bytes() {
  static const std::size_t bytes = [] {
    for (int index = 0; index < 8; ++index) {
      const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", index);
      std::ifstream level_file(dir + "level"), size_file(dir + "size");
      int level = 0;
      std::string size;
      if (!(level_file >> level) || level != 3 || !(size_file >> size)) continue;
      char* end = nullptr;
      const unsigned long long value = std::strtoull(size.c_str(), &end, 10);
      const int shift = *end == 'K' ? 10 : *end == 'M' ? 20 : *end == 'G' ? 30 : 0;
      if (value > 0) return static_cast<std::size_t>(value) << shift;
    }
    std::size_t b = 0;
#if defined(_SC_LEVEL3_CACHE_SIZE)
    b = from_sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return b > 0 ? b : std::size_t{32} << 20;
  }();
  return bytes;
}

}  // namespace zwang
