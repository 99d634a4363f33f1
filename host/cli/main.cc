#include <chrono>
#include <cstdio>

#include "zwang/zwang.hpp"

int main() {
  const zwang::Model model = zwang::examples::chain();
  zwang::Simulator<double> sim(model, 4096);
  const auto t0 = std::chrono::steady_clock::now();
  sim.step(1000);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%.3g instance-steps/s\n", 4096.0 * 1000 / s);
}
