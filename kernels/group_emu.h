// Emu<G>: the G lanes of a Warp<G> group (kernels/group.h) on the CPU, for tests. Item i belongs
// to lane i mod G, as on the GPU, and every collective reduces as Warp<G> does: each lane's
// partial over its items in item order, then a butterfly over the lanes (step m: lane l adds lane
// l xor m, m = G/2, ..., 1). Since a + b == b + a, every lane ends with the same value, and the
// bits are those of the GPU up to contraction into FMA and libm.
//
// The order in which each() runs its items is a choice (lanes ascending, descending, or shuffled
// by a seed): a stage whose items are independent gives the same bits in every order. A
// collective called inside each() or one(), where a warp would deadlock or diverge, throws.
//
// The checked mode, for the memory given to watch(): each() (and the writes of scan()) first runs
// every item alone, from the bytes the phase started with, and throws when
//   two items write the same byte (write after write), or
//   the items run one after another end with other bytes than the items run alone: an item read
//   what another wrote (read after write, write after read; seen in the orders where the writer
//   runs first, so a test runs kLanes and kReverse);
// naming the items and the byte. A write of the value already there is not seen; memory outside
// the watched spans is ASan's. Every collective is a phase: phases() counts them (a point every
// lane passes before any goes on: a barrier or a shuffle on the GPU), and a probe (set_probe)
// hears of each item's lane and each phase's end.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/group.h"

namespace zwang {

enum class EmuOrder { kLanes, kReverse, kShuffled };

template <int G>
class Emu {
  static_assert(G >= 1 && G <= 32 && (G & (G - 1)) == 0, "G is a power of two up to 32");

 public:
  static constexpr int size = G;

  explicit Emu(EmuOrder order = EmuOrder::kLanes, std::uint64_t seed = 0)
      : order_(order), rng_(seed) {}

  // the checked mode over [p, p + bytes) (and the spans watched before)
  void watch(void* p, std::size_t bytes) {
    spans_.push_back({static_cast<unsigned char*>(p), bytes});
  }
  // item(lane) before each item a lane runs, end() after each phase, slot() after each G items of
  // a scan, which the lanes run in step (count_ops)
  void set_probe(std::function<void(int)> item, std::function<void()> end,
                 std::function<void()> slot = {}) {
    probe_item_ = std::move(item);
    probe_end_ = std::move(end);
    probe_slot_ = std::move(slot);
  }
  long phases() const { return phases_; }

  template <class F>
  void each(int n, F&& f) {
    Phase phase(*this, "each()");
    const std::vector<int> items = visit(n);
    if (!spans_.empty() && n > 1) check_independent(items, f);
    for (int i : items) {
      lane(i);
      f(i);
    }
  }
  template <class F>
  void one(F&& f) {
    Phase phase(*this, "one()");
    lane(0);
    f();
  }
  template <class F>
  int uniform(F&& f) {
    Phase phase(*this, "uniform()");
    lane(0);
    return f();
  }
  template <class T, class F>
  T sum(int n, F&& f) {
    Phase phase(*this, "sum()");
    std::array<T, G> v;
    v.fill(T(0));
    for (int i = 0; i < n; ++i) {
      lane(i);
      v[i % G] += f(i);
    }
    return butterfly(v, [](T a, T b) { return a + b; });
  }
  template <class T, class F>
  T sum(int n, F&& f, T init) {
    if constexpr (G == 1) {
      // one lane: Solo's running sum
      Phase phase(*this, "sum()");
      T v = init;
      for (int i = 0; i < n; ++i) {
        lane(i);
        v += f(i);
      }
      return v;
    } else {
      return init + sum<T>(n, f);
    }
  }
  template <class T, class F>
  T max(int n, F&& f, T lowest) {
    Phase phase(*this, "max()");
    std::array<T, G> v;
    v.fill(lowest);
    for (int i = 0; i < n; ++i) {
      lane(i);
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
      lane(i);
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
  // one lane runs each item once, as Solo
  template <class F>
  int emit(int n, F&& f) {
    if constexpr (G == 1) {
      Phase phase(*this, "emit()");
      int offset = 0;
      for (int i = 0; i < n; ++i) {
        lane(i);
        offset += f(i, offset, true);
      }
      return offset;
    } else {
      std::vector<int> counted(static_cast<std::size_t>(std::max(n, 0)));
      return scan(
          n, [&](int i) { return counted[i] = f(i, 0, false); },
          [&](int i, int first) {
            const int wrote = f(i, first, true);
            if (wrote != counted[i]) {
              throw std::logic_error("emit(): item " + std::to_string(i) + " counted " +
                                     std::to_string(counted[i]) + " and wrote " +
                                     std::to_string(wrote));
            }
          });
    }
  }
  // per slot (items s·G … s·G + G − 1): the lanes' counts, their exclusive prefix over the lanes,
  // the slot's total added to the base of the next slot
  template <class C, class A>
  int scan(int n, C&& count, A&& at) {
    Phase phase(*this, "scan()");
    int base = 0;
    for (int slot = 0; slot * G < n; ++slot) {
      std::array<int, G> c{}, before{};
      for (int l = 0; l < G && slot * G + l < n; ++l) {
        lane(l);
        c[l] = count(slot * G + l);
      }
      std::exclusive_scan(c.begin(), c.end(), before.begin(), 0);
      const std::vector<int> items = visit(std::min(G, n - slot * G));
      const auto write = [&](int i) { at(slot * G + i, base + before[i]); };
      if (!spans_.empty() && items.size() > 1) check_independent(items, write);
      for (int i : items) {
        lane(i);
        write(i);
      }
      if (probe_slot_) probe_slot_();
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
    ~Phase() {
      g_.inside_ = nullptr;
      ++g_.phases_;
      if (g_.probe_end_) g_.probe_end_();
    }
    Phase(const Phase&) = delete;
    Phase& operator=(const Phase&) = delete;

   private:
    Emu& g_;
  };

  // each step on every lane, as the lanes of a warp run it (the probe hears which)
  template <class V, class Op>
  V butterfly(std::array<V, G> v, Op op) {
    for (int m = G / 2; m >= 1; m /= 2) {
      std::array<V, G> next = v;
      for (int l = 0; l < G; ++l) {
        lane(l);
        next[l] = op(v[l], v[l ^ m]);
      }
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

  void lane(int item) {
    if (probe_item_) probe_item_(item % G);
  }

  struct Span {
    unsigned char* p;
    std::size_t bytes;
  };

  std::vector<unsigned char> snapshot() const {
    std::vector<unsigned char> out;
    for (const Span& s : spans_) out.insert(out.end(), s.p, s.p + s.bytes);
    return out;
  }
  void restore(const std::vector<unsigned char>& bytes) const {
    std::size_t at = 0;
    for (const Span& s : spans_) {
      std::memcpy(s.p, bytes.data() + at, s.bytes);
      at += s.bytes;
    }
  }
  // "byte k of span s"
  std::string where(std::size_t k) const {
    std::size_t s = 0;
    while (k >= spans_[s].bytes) k -= spans_[s++].bytes;
    return "byte " + std::to_string(k) + " of watched span " + std::to_string(s);
  }

  // the checked mode of a phase (each(), scan()'s writes): the items alone, then in sequence,
  // from the same bytes
  template <class F>
  void check_independent(const std::vector<int>& items, F& f) {
    const std::vector<unsigned char> start = snapshot();
    std::vector<unsigned char> merged = start;
    std::vector<int> writer(start.size(), -1);
    for (int i : items) {
      restore(start);
      f(i);
      const std::vector<unsigned char> after = snapshot();
      for (std::size_t k = 0; k < after.size(); ++k) {
        if (after[k] == start[k]) continue;
        if (writer[k] >= 0) {
          restore(start);
          throw std::logic_error(std::string(inside_) + ": items " + std::to_string(writer[k]) +
                                 " and " + std::to_string(i) + " both write " + where(k));
        }
        writer[k] = i;
        merged[k] = after[k];
      }
    }
    restore(start);
    for (int i : items) f(i);
    const std::vector<unsigned char> sequence = snapshot();
    for (std::size_t k = 0; k < sequence.size(); ++k) {
      if (sequence[k] == merged[k]) continue;
      const std::string by = writer[k] >= 0 ? "item " + std::to_string(writer[k]) : "no item";
      restore(start);
      const std::string what = std::string(inside_) +
                               ": the items depend on each other: run one after another "
                               "they leave " +
                               where(k) + " other than run alone (written alone by " + by + ")";
      throw std::logic_error(what);
    }
    restore(start);
  }

  EmuOrder order_;
  std::mt19937_64 rng_;
  const char* inside_ = nullptr;
  long phases_ = 0;
  std::vector<Span> spans_;
  std::function<void(int)> probe_item_;
  std::function<void()> probe_end_, probe_slot_;
};

}  // namespace zwang
