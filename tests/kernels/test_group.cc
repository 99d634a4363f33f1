// Lane groups (kernels/group.h, kernels/group_emu.h): Solo against the standard algorithms, Emu<G>
// against Solo where the result is exact (integers, maxima, scans), against the exact sum where it
// rounds, and against itself in every item order.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

#include "kernels/group.h"
#include "kernels/group_emu.h"

namespace zwang::test {
namespace {

std::vector<double> random_values(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(static_cast<std::size_t>(n));
  // magnitudes over twelve decades, so that the order of a sum shows in its bits
  for (double& x : v) x = u(rng) * std::pow(10.0, 12 * std::abs(u(rng)) - 6);
  return v;
}

TEST(Group, SoloIsTheLoopInItemOrder) {
  const std::vector<double> v = random_values(37, 1);
  Solo g;
  double in_order = 0;
  for (double x : v) in_order += x;
  EXPECT_EQ(g.sum<double>(37, [&](int i) { return v[i]; }), in_order);
  EXPECT_EQ(g.max<double>(
                37, [&](int i) { return v[i]; }, -INFINITY),
            *std::max_element(v.begin(), v.end()));
  EXPECT_EQ(g.argmax(37, [&](int i) { return v[i]; }),
            std::max_element(v.begin(), v.end()) - v.begin());
  EXPECT_EQ(g.argmax(0, [&](int i) { return v[i]; }), -1);
  std::vector<int> seen;
  g.each(5, [&](int i) { seen.push_back(i); });
  EXPECT_EQ(seen, (std::vector<int>{0, 1, 2, 3, 4}));
}

// Emu<1> has one lane: its sums are Solo's, bit for bit
TEST(Group, OneLaneEmuIsSolo) {
  const std::vector<double> v = random_values(101, 2);
  Solo solo;
  Emu<1> emu;
  EXPECT_EQ(emu.sum<double>(101, [&](int i) { return v[i]; }),
            solo.sum<double>(101, [&](int i) { return v[i]; }));
}

// sum(n, f, init): on one lane (Solo, Emu<1>) the running sum from init, bit for bit; on G lanes
// init plus the group's sum. TwoSums carries two sums with the bits each has alone.
TEST(Group, SumFromAValueAndTwoSums) {
  const std::vector<double> v = random_values(41, 3), w = random_values(41, 4);
  const double init = 1e3;
  double running = init;
  for (double x : v) running += x;
  Solo solo;
  Emu<1> one;
  Emu<8> lanes, reverse(EmuOrder::kReverse);
  const auto value = [&](int i) { return v[i]; };
  EXPECT_EQ(solo.sum(41, value, init), running);
  EXPECT_EQ(one.sum(41, value, init), running);
  EXPECT_EQ(lanes.sum(41, value, init), init + lanes.sum<double>(41, value));
  const auto pair = [&](int i) { return TwoSums<double>(v[i], w[i]); };
  const auto second = [&](int i) { return w[i]; };
  for (const TwoSums<double> s :
       {solo.sum<TwoSums<double>>(41, pair), one.sum<TwoSums<double>>(41, pair)}) {
    EXPECT_EQ(s.a, solo.sum<double>(41, value));
    EXPECT_EQ(s.b, solo.sum<double>(41, second));
  }
  const TwoSums<double> s8 = lanes.sum<TwoSums<double>>(41, pair);
  EXPECT_EQ(s8.a, lanes.sum<double>(41, value));
  EXPECT_EQ(s8.b, lanes.sum<double>(41, second));
  const TwoSums<double> r8 = reverse.sum(41, pair, TwoSums<double>(init, -init));
  EXPECT_EQ(r8.a, init + s8.a);
  EXPECT_EQ(r8.b, -init + s8.b);
}

template <int G>
void expect_collectives(std::uint64_t seed) {
  for (int n : {0, 1, G - 1, G, G + 1, 3 * G + 5, 200}) {
    const std::vector<double> v = random_values(n, seed + n);
    auto value = [&](int i) { return v[i]; };
    Solo solo;
    Emu<G> lanes(EmuOrder::kLanes), shuffled(EmuOrder::kShuffled, 7);
    // a sum rounds by its order: within n ε Σ|v| of the exact one, and with the bits of the
    // GPU's order, written here as a recursion: lane l's partial over items l, l + G, ... in
    // item order, then V(l, m) = V(l, 2m) + V(l xor m, 2m) down to V(0, 1)
    const double s = lanes.template sum<double>(n, value);
    std::vector<double> partial(G, 0.0);
    for (int i = 0; i < n; ++i) partial[i % G] += v[i];
    const auto tree = [&](auto&& self, int l, int m) -> double {
      return m == G ? partial[l] : self(self, l, 2 * m) + self(self, l ^ m, 2 * m);
    };
    EXPECT_EQ(s, tree(tree, 0, 1)) << "G " << G << ", n " << n;
    long double exact = 0, magnitude = 0;
    for (double x : v) {
      exact += x;
      magnitude += std::abs(x);
    }
    EXPECT_LE(std::abs(static_cast<long double>(s) - exact), (n + 1) * 1.2e-16L * magnitude)
        << "G " << G << ", n " << n;
    // integers, maxima and scans are exact: Solo's
    // 0 to 7 per item, zeros among them
    auto count = [](int i) {
      return static_cast<int>((static_cast<unsigned>(i) * 2654435761u) >> 29);
    };
    EXPECT_EQ(
        lanes.template sum<long long>(n, [&](int i) { return static_cast<long long>(count(i)); }),
        solo.template sum<long long>(n, [&](int i) { return static_cast<long long>(count(i)); }));
    EXPECT_EQ(lanes.template max<double>(n, value, -INFINITY),
              solo.template max<double>(n, value, -INFINITY));
    auto rounded = [&](int i) { return std::floor(v[i] * 2); };  // ties among items
    EXPECT_EQ(shuffled.argmax(n, rounded), solo.argmax(n, rounded)) << "G " << G << ", n " << n;
    std::vector<int> expected(static_cast<std::size_t>(n)), got(static_cast<std::size_t>(n), -1);
    std::vector<int> counts(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) counts[i] = count(i);
    std::exclusive_scan(counts.begin(), counts.end(), expected.begin(), 0);
    const int total = shuffled.scan(n, count, [&](int i, int offset) { got[i] = offset; });
    EXPECT_EQ(got, expected);
    EXPECT_EQ(total, std::accumulate(counts.begin(), counts.end(), 0));
  }
}

TEST(Group, EmuCollectivesAreExactOrOrderFree) {
  expect_collectives<4>(10);
  expect_collectives<8>(20);
  expect_collectives<16>(30);
  expect_collectives<32>(40);
}

// each() runs every item once, in the order asked for
TEST(Group, EmuEachRunsEveryItemOnce) {
  for (EmuOrder order : {EmuOrder::kLanes, EmuOrder::kReverse, EmuOrder::kShuffled}) {
    Emu<8> g(order, 3);
    std::vector<int> seen;
    g.each(50, [&](int i) { seen.push_back(i); });
    std::vector<int> sorted = seen;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(50);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all);
    if (order == EmuOrder::kLanes) {
      EXPECT_EQ(seen, all);
    } else if (order == EmuOrder::kReverse) {
      EXPECT_EQ(seen.front(), 49);
    } else {
      EXPECT_NE(seen, all);
    }
  }
}

// a stage of independent items: y = A x row by row, then |y|², gives the same bits in every order
TEST(Group, IndependentItemsGiveTheSameBitsInEveryOrder) {
  const int rows = 45, cols = 13;
  const std::vector<double> a = random_values(rows * cols, 5), x = random_values(cols, 6);
  auto stage = [&](auto& g) {
    std::vector<double> y(rows);
    g.each(rows, [&](int r) {
      double s = 0;
      for (int c = 0; c < cols; ++c) s += a[r * cols + c] * x[c];
      y[r] = s;
    });
    return g.template sum<double>(rows, [&](int r) { return y[r] * y[r]; });
  };
  Emu<16> lanes(EmuOrder::kLanes), reverse(EmuOrder::kReverse), shuffled(EmuOrder::kShuffled, 9);
  const double r = stage(lanes);
  EXPECT_EQ(stage(reverse), r);
  EXPECT_EQ(stage(shuffled), r);
  Solo solo;
  EXPECT_NEAR(stage(solo), r, 1e-12 * std::abs(r));
}

// where a warp would deadlock or diverge, the emulator refuses
TEST(Group, CollectiveInsideEachThrows) {
  Emu<8> g;
  auto nested_sum = [&] {
    g.each(4, [&](int) { g.sum<double>(3, [](int i) { return double(i); }); });
  };
  EXPECT_THROW(nested_sum(), std::logic_error);
  try {
    g.one([&] { g.each(2, [](int) {}); });
    ADD_FAILURE() << "each() inside one() ran";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "each() inside one(): collectives are called from uniform code only");
  }
  // the group is usable again after the error
  EXPECT_EQ(g.sum<double>(3, [](int i) { return double(i); }), 3.0);
}

// the checked mode names the items and the byte of a write-after-write and of a dependence, and
// passes independent items; the memory is left as it was before the phase that failed
TEST(Group, CheckedModeFindsRaces) {
  std::vector<double> x(8, 1.0);
  const auto checked = [&](EmuOrder order) {
    auto g = std::make_unique<Emu<4>>(order);
    g->watch(x.data(), x.size() * sizeof(double));
    return g;
  };
  // independent: item i writes x[i] from x[i] alone
  checked(EmuOrder::kReverse)->each(8, [&](int i) { x[i] = 2 * x[i] + i; });
  EXPECT_EQ(x[7], 9.0);
  // write after write: items 1 and 2 both write x[0]
  try {
    checked(EmuOrder::kLanes)->each(3, [&](int i) {
      if (i > 0) x[0] = 10.0 * i;
    });
    ADD_FAILURE() << "a write after write passed";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "each(): items 1 and 2 both write byte 6 of watched span 0");
  }
  EXPECT_EQ(x[0], 2.0);
  // read after write: item i + 1 reads what item i writes; seen where the writer runs first
  const auto shift = [&](int i) { x[i + 1] = x[i] * 2.0; };
  EXPECT_THROW(checked(EmuOrder::kLanes)->each(7, shift), std::logic_error);
  EXPECT_EQ(x[1], 3.0);
  // write after read: item i reads x[i + 1], which item i + 1 writes
  const auto pull = [&](int i) { x[i] = x[i + 1] * 3.0 + x[i]; };
  EXPECT_THROW(checked(EmuOrder::kReverse)->each(7, pull), std::logic_error);
  EXPECT_EQ(x[7], 9.0);
  // scan()'s writes are checked as each()'s: two items writing one slot
  try {
    checked(EmuOrder::kLanes)
        ->scan(
            3, [](int) { return 1; }, [&](int i, int) { x[0] = 10.0 * (i + 1); });
    ADD_FAILURE() << "a write after write in scan() passed";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "scan(): items 0 and 1 both write byte 6 of watched span 0");
  }
}

// emit() puts each item's outputs after those of the items before it, on one lane as on a group,
// and a group refuses an item whose count depends on whether it writes
TEST(Group, EmitFillsSlotsInItemOrder) {
  const std::vector<int> counts = {2, 0, 3, 1, 0, 4, 1, 2, 0, 3};
  const auto fill = [&](auto& g) {
    std::vector<int> slots(16, -1);
    const int total = g.emit(10, [&](int i, int first, bool write) {
      for (int k = 0; write && k < counts[i]; ++k) slots[first + k] = i;
      return counts[i];
    });
    EXPECT_EQ(total, 16);
    return slots;
  };
  Solo solo;
  Emu<4> lanes;
  Emu<8> shuffled(EmuOrder::kShuffled, 5);
  const std::vector<int> expected = {0, 0, 2, 2, 2, 3, 5, 5, 5, 5, 6, 7, 7, 9, 9, 9};
  EXPECT_EQ(fill(solo), expected);
  EXPECT_EQ(fill(lanes), expected);
  EXPECT_EQ(fill(shuffled), expected);
  try {
    lanes.emit(3, [](int i, int, bool write) { return write ? i : 1; });
    ADD_FAILURE() << "a count that depends on writing passed";
  } catch (const std::logic_error& e) {
    EXPECT_STREQ(e.what(), "emit(): item 0 counted 1 and wrote 0");
  }
}

// every collective is a phase, and the probe hears each item's lane
TEST(Group, EmuCountsPhasesAndLanes) {
  Emu<4> g;
  std::vector<int> items(4, 0);
  int ends = 0;
  g.set_probe([&](int lane) { ++items[lane]; }, [&] { ++ends; });
  g.each(6, [](int) {});
  g.one([] {});
  EXPECT_EQ(g.sum<double>(3, [](int i) { return double(i); }), 3.0);
  EXPECT_EQ(g.uniform([] { return 7; }), 7);
  EXPECT_EQ(g.phases(), 4);
  EXPECT_EQ(ends, 4);
  // each(6): 2, 2, 1, 1; one, uniform and the sum's items: lane 0 three, lanes 1, 2 one each; the
  // sum's butterfly: two steps on every lane
  EXPECT_EQ(items, (std::vector<int>{7, 5, 4, 3}));
}

}  // namespace
}  // namespace zwang::test
