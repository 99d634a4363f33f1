// The model half of cuda_build_report.txt: for each example model, the sizes that decide what
// a GPU thread touches.  Registers and spills come from the kernels' code and are the same for
// every model; what grows with the model is the global-memory footprint per instance.
#include <fmt/format.h>

#include <cstdio>

#include "cuda/plan.hpp"
#include "zwang/examples.hpp"

int main() {
  using namespace zwang;
  std::printf("%-16s %3s %3s %3s %5s %5s %5s %5s %12s %12s %s\n", "model", "nq", "nv", "nu",
              "nbody", "data", "param", "work", "bytes f32", "bytes f64", "path (default)");
  for (const std::string& name : examples::names()) {
    const Model m = examples::by_name(name);
    const Layout l = make_layout(m.sizes());
    const int rows = l.data_rows + l.param_rows + l.work_rows;
    // arenas plus time (8), status (4) and phase (4)
    const long f32 = 4L * rows + 16, f64 = 8L * rows + 16;
    const CholeskyPath path =
        gpu::choose_cholesky(CholeskyPath::kAuto, m.nv, SimulatorOptions{}.cusolver_min_nv);
    std::printf("%-16s %3d %3d %3d %5d %5d %5d %5d %12ld %12ld %s\n", name.c_str(), m.nq, m.nv,
                m.nu, m.nbody, l.data_rows, l.param_rows, l.work_rows, f32, f64,
                path == CholeskyPath::kCusolver ? "cuSOLVER" : "in-kernel");
  }
  return 0;
}
