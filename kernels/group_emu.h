// Emu<G>: the G lanes of a Warp<G> group (kernels/group.h) on the CPU, for tests. Item i belongs
// to lane i mod G, as on the GPU, and every collective reduces as Warp<G> does: each lane's
// partial over its items in item order, then a butterfly over the lanes (step m: lane l adds lane
// l xor m, m = G/2, ..., 1). Since a + b == b + a, every lane ends with the same value, and the
// bits are those of the GPU up to contraction into FMA and libm.
//
// The order in which each() runs its items is a choice (lanes ascending, descending, or shuffled
// by a seed): a stage whose items are independent gives the same bits in every order. A
// collective called inside each() or one(), where a warp would deadlock or diverge, throws.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace zwang {

enum class EmuOrder { kLanes, kReverse, kShuffled };

template <int G>
class Emu {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G is a power of two up to 32");

 public:
  static constexpr int size = G;

  explicit Emu(EmuOrder order = EmuOrder::kLanes, std::uint64_t seed = 0)
      : order_(order), rng_(seed) {}

  template <class F>
  void each(int n, F&& f) {
    Phase phase(*this, "each()");
    for (int i : visit(n)) f(i);
  }
  template <class F>
  void one(F&& f) {
    Phase phase(*this, "one()");
    f();
  }
  template <class T, class F>
  T sum(int n, F&& f) {
    Phase phase(*this, "sum()");
    std::array<T, G> v;
    v.fill(T(0));
    for (int i = 0; i < n; ++i) v[i % G] += f(i);
    return butterfly(v, [](T a, T b) { return a + b; });
  }
  template <class T, class F>
  T max(int n, F&& f, T lowest) {
    Phase phase(*this, "max()");
    std::array<T, G> v;
    v.fill(lowest);
    for (int i = 0; i < n; ++i) {
      const T x = f(i);
      v[i % G] = x > v[i % G] ? x : v[i % G];
    }
    return butterfly(v, [](T a, T b) { return b > a ? b : a; });
  }
  template <class F>
  int argmax(int n, F&& f) {
    Phase phase(*this, "argmax()");
    using V = decltype(f(0));
    std::array<std::pair<V, int>, G> v;
    v.fill({V{}, -1});
    for (int i = 0; i < n; ++i) {
      const V x = f(i);
      auto& best = v[i % G];
      if (best.second < 0 || x > best.first) best = {x, i};
    }
    // symmetric, as the butterfly needs: the larger value, on ties the lower item
    return butterfly(v,
                     [](const std::pair<V, int>& a, const std::pair<V, int>& b) {
                       if (a.second < 0) return b;
                       if (b.second < 0) return a;
                       const bool take_b =
                           b.first > a.first || (b.first == a.first && b.second < a.second);
                       return take_b ? b : a;
                     })
        .second;
  }
  // per slot (items s·G … s·G + G − 1): the lanes' counts, their exclusive prefix over the lanes,
  // the slot's total added to the base of the next slot
  template <class C, class A>
  int scan(int n, C&& count, A&& at) {
    Phase phase(*this, "scan()");
    int base = 0;
    for (int slot = 0; slot * G < n; ++slot) {
      std::array<int, G> c{}, before{};
      for (int l = 0; l < G && slot * G + l < n; ++l) c[l] = count(slot * G + l);
      std::exclusive_scan(c.begin(), c.end(), before.begin(), 0);
      for (int i : visit(std::min(G, n - slot * G))) at(slot * G + i, base + before[i]);
      base += before[G - 1] + c[G - 1];
    }
    return base;
  }

 private:
  // marks the group as inside a collective; a collective inside another throws
  class Phase {
   public:
    Phase(Emu& g, const char* what) : g_(g) {
      if (g_.inside_) {
        throw std::logic_error(std::string(what) + " inside " + g_.inside_ +
                               ": collectives are called from uniform code only");
      }
      g_.inside_ = what;
    }
    ~Phase() { g_.inside_ = nullptr; }
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

   private:
    Emu& g_;
  };

  template <class V, class Op>
  static V butterfly(std::array<V, G> v, Op op) {
    for (int m = G / 2; m >= 1; m /= 2) {
      std::array<V, G> next = v;
      for (int l = 0; l < G; ++l) next[l] = op(v[l], v[l ^ m]);
      v = next;
    }
    return v[0];
  }

  // the items 0 … n − 1 in the order each() runs them
  std::vector<int> visit(int n) {
    std::vector<int> items(static_cast<std::size_t>(std::max(n, 0)));
    std::iota(items.begin(), items.end(), 0);
    if (order_ == EmuOrder::kReverse) std::reverse(items.begin(), items.end());
    if (order_ == EmuOrder::kShuffled) std::shuffle(items.begin(), items.end(), rng_);
    return items;
  }

  EmuOrder order_;
  std::mt19937_64 rng_;
  const char* inside_ = nullptr;
};

}  // namespace zwang
