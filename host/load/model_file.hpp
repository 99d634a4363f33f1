// Reading a model file's text for the loaders: one place that refuses what is not a regular
// file (a directory, /dev/zero, a pipe) and what is too large to be a model, with messages that
// name the file, so that no loader reads without a bound.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

namespace zwang {

// a model file, or all the files an MJCF model includes together, is at most this large
inline constexpr std::uintmax_t kMaxModelFileBytes = std::uintmax_t{64} << 20;

// The text of a model file; ModelError "NAME: ..." when it is missing, not a regular
// file, larger than `max_bytes` or unreadable.  `name` is how messages show the file.
std::string read_model_file(const std::filesystem::path& path, const std::string& name,
                            std::uintmax_t max_bytes = kMaxModelFileBytes);

}  // namespace zwang
