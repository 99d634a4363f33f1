// The pipeline on lane groups (kernels/pipeline.h: smooth, forward and step with a group) against
// the same calls on one lane, bit for bit: every model case (contacts on) at a random state, in
// float64 and float32, under Emu<G> for G = 4 … 32 with its items in every order; and clean in
// Emu's checked mode (no two items of a phase touching the same bytes).
#include <gtest/gtest.h>

#include <random>

#include "group_arenas.h"
#include "host/model/arrays.hpp"
#include "kernels/group.h"
#include "kernels/group_emu.h"
#include "kernels/pipeline.h"
#include "model_cases.h"
#include "test_util.h"

namespace zwang::test {
namespace {

// what a test runs on an instance: smooth(), forward(), or `steps` steps
struct Call {
  const char* name;
  int steps;  // -2 smooth, -1 forward
};
constexpr Call kCalls[] = {{"smooth", -2}, {"forward", -1}, {"step(1)", 1}, {"step(5)", 5}};

template <class T, class Grp>
void run(const Call& call, const ModelView<T>& view, const Instance<T>& d, Grp& g) {
  if (call.steps == -2) smooth(view, d, g);
  if (call.steps == -1) forward(view, d, g);
  for (int k = 0; k < call.steps; ++k) step(view, d, g);
}

// f(model case, view, start state) for every model case
template <class T, class F>
void for_each_case(unsigned seed, F&& f) {
  for (const ModelCase& c : model_cases()) {
    SCOPED_TRACE(c.name);
    const ModelArrays<T> arrays(c.model);
    const ModelView<T> view = arrays.view();
    std::mt19937 rng(seed);
    const Arenas<T> start(c.model, view, rng);
    f(view, start);
  }
}

template <class T, int G>
void expect_emu_is_solo(const Call& call, const ModelView<T>& view, const Arenas<T>& start,
                        const Arenas<T>& solo) {
  for (EmuOrder order : {EmuOrder::kLanes, EmuOrder::kReverse, EmuOrder::kShuffled}) {
    SCOPED_TRACE(::testing::Message()
                 << call.name << ", G = " << G << ", order " << static_cast<int>(order));
    Arenas<T> a = start;
    Emu<G> g(order, 11);
    run(call, view, a.instance(view), g);
    EXPECT_TRUE(same_bits(a, solo));
  }
}

// and the steps compared moved the instances, contacts included
template <class T>
void expect_groups_are_solo() {
  int moved = 0, touching = 0;
  for_each_case<T>(5, [&](const ModelView<T>& view, const Arenas<T>& start) {
    for (const Call& call : kCalls) {
      Arenas<T> solo = start;
      Solo one;
      run(call, view, solo.instance(view), one);
      if (call.steps == 5) {
        moved += solo.status() == 0;
        touching += solo.status() == 0 && view.s.nconmax > 0 && solo.data(view.lay.ncon) > T(0);
      }
      expect_emu_is_solo<T, 4>(call, view, start, solo);
      expect_emu_is_solo<T, 8>(call, view, start, solo);
      expect_emu_is_solo<T, 16>(call, view, start, solo);
      expect_emu_is_solo<T, 32>(call, view, start, solo);
    }
  });
  EXPECT_GE(moved, static_cast<int>(model_cases().size()) - 2);
  EXPECT_GE(touching, 1);
}

TEST(GroupPipeline, EmuIsSoloBitForBitInDouble) {
  expect_groups_are_solo<double>();
}

TEST(GroupPipeline, EmuIsSoloBitForBitInFloat) {
  expect_groups_are_solo<float>();
}

// every phase of a step keeps the contract: its items touch disjoint bytes of the instance
TEST(GroupPipeline, CheckedModeIsClean) {
  for_each_case<double>(9, [](const ModelView<double>& view, const Arenas<double>& start) {
    Arenas<double> solo = start;
    step(view, solo.instance(view));
    for (EmuOrder order : {EmuOrder::kLanes, EmuOrder::kReverse}) {
      Arenas<double> a = start;
      Emu<8> g(order);
      a.watch(g);
      EXPECT_NO_THROW(step(view, a.instance(view), g));
      EXPECT_TRUE(same_bits(a, solo));
    }
  });
}

}  // namespace
}  // namespace zwang::test
