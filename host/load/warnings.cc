#include "host/load/warnings.hpp"

#include <fmt/format.h>

#include <utility>

namespace zwang {

void LoadWarnings::add(std::string_view where, std::string_view what) {
  if (!seen_.emplace(std::string(where), std::string(what)).second) return;
  const auto found = index_.find(what);
  if (found == index_.end()) {
    index_.emplace(std::string(what), kinds_.size());
    kinds_.push_back({std::string(what), std::string(where), std::string(where), 1});
    return;
  }
  Kind& kind = kinds_[found->second];
  kind.last = std::string(where);
  ++kind.places;
}

std::vector<std::string> LoadWarnings::lines() const {
  std::vector<std::string> out;
  for (const Kind& k : kinds_) {
    out.push_back(k.places == 1 ? fmt::format("{}: {}", k.first, k.what)
                                : fmt::format("{}: {} ({} places, the last at {})", k.first, k.what,
                                              k.places, k.last));
  }
  return out;
}

ModelError with_warnings(const ModelError& error, const LoadWarnings& warnings) {
  if (warnings.empty()) return error;
  std::string message = fmt::format("{}\nwarnings before the error:", error.what());
  for (const std::string& line : warnings.lines()) message += "\n  " + line;
  return ModelError(message);
}

}  // namespace zwang
