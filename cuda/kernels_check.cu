// Every stage of kernels/ compiled for the device in float and double.
#include "kernels/pipeline.h"

namespace zwang {
namespace {

template <class T>
__global__ void forward_all(const __grid_constant__ ModelView<T> m, T* data, T* param, T* work,
                            double* time, int* status, long long n, long long ld) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const Instance<T> d{{data + i, ld}, {param + i, ld}, {work + i, ld},
                      &m.lay,         time + i,        status + i};
  forward(m, d);
  step(m, d);
}

template __global__ void forward_all<float>(const __grid_constant__ ModelView<float>, float*,
                                            float*, float*, double*, int*, long long, long long);
template __global__ void forward_all<double>(const __grid_constant__ ModelView<double>, double*,
                                             double*, double*, double*, int*, long long, long long);

}  // namespace
}  // namespace zwang
