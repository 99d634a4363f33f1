#include "host/cpu/cache_size.hpp"

#include <fmt/format.h>
#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

#include <cstdlib>
#include <fstream>
#include <string>

namespace zwang {
namespace {

// sysconf's names for the two sizes where the C library has them (glibc), else -1
#if defined(_SC_LEVEL2_CACHE_SIZE) && defined(_SC_LEVEL3_CACHE_SIZE)
constexpr int kL2Name = _SC_LEVEL2_CACHE_SIZE, kL3Name = _SC_LEVEL3_CACHE_SIZE;
#else
constexpr int kL2Name = -1, kL3Name = -1;
#endif

// sysconf(name) where the C library has it, else `fallback`
std::size_t from_sysconf([[maybe_unused]] int name, std::size_t fallback) {
#if __has_include(<unistd.h>)
  const long bytes = name < 0 ? 0 : sysconf(name);
  if (bytes > 0) return static_cast<std::size_t>(bytes);
#endif
  return fallback;
}

// One L3 as Linux's sysfs gives it, 0 where it does not
std::size_t l3_from_sysfs() {
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
  return 0;
}

}  // namespace

std::size_t l2_bytes() {
  static const std::size_t bytes = from_sysconf(kL2Name, std::size_t{1} << 20);
  return bytes;
}

std::size_t l3_bytes() {
  static const std::size_t bytes = [] {
    const std::size_t sysfs = l3_from_sysfs();
    return sysfs > 0 ? sysfs : from_sysconf(kL3Name, std::size_t{32} << 20);
  }();
  return bytes;
}

}  // namespace zwang
