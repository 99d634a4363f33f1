// The warnings of a model loader: each kind said once, however many places it applies to, and
// shown with the error when a load fails after some were said.
#pragma once

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "zwang/model.hpp"

namespace zwang {

class LoadWarnings {
 public:
  // `what` at `where` ("file:line"); the same `what` elsewhere only adds to its count, and
  // again at the same place is nothing new
  void add(std::string_view where, std::string_view what);
  // "where: what" for each kind in the order they first came, "where: what (n places, the last
  // at where)" for a kind said at n > 1 places
  std::vector<std::string> lines() const;
  bool empty() const { return kinds_.empty(); }

 private:
  struct Kind {
    std::string what, first, last;
    int places = 0;
  };
  std::vector<Kind> kinds_;
  std::map<std::string, std::size_t, std::less<>> index_;  // what => kinds_
  std::set<std::pair<std::string, std::string>> seen_;     // (where, what)
};

// `error` followed by the warnings said before it, one per line, so that what the loader left
// out is in sight of the error it may explain; `error` itself when there are none
ModelError with_warnings(const ModelError& error, const LoadWarnings& warnings);

}  // namespace zwang
