// The line of a byte offset in a text, for the loaders' "file:line" messages: the line starts
// are found once, then each lookup is a binary search, so locating every element of a large
// file stays O(n log n).
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>
#include <vector>

namespace zwang {

class TextLines {
 public:
  TextLines() = default;
  explicit TextLines(std::string_view text) {
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
  }

  // 1-based line of the character at `offset` (pugixml's offset_debug, a parse error's
  // offset); 0 for a negative offset, which pugixml gives when it does not know
  int line_at(std::ptrdiff_t offset) const {
    if (offset < 0) return 0;
    const auto it =
        std::upper_bound(starts_.begin(), starts_.end(), static_cast<std::size_t>(offset));
    return static_cast<int>(it - starts_.begin());
  }

 private:
  std::vector<std::size_t> starts_{0};  // offset of each line's first character
};

}  // namespace zwang
