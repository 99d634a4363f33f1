// Stand-in for the CUDA backend in a build configured with ZWANG_CUDA=OFF.
#include <stdexcept>

#include "host/backend.hpp"

namespace zwang {

CudaStatus cuda_status() {
  return {0, "zwang was built without CUDA (ZWANG_CUDA=OFF)"};
}

template <class T>
std::unique_ptr<BackendImpl<T>> make_cuda_backend(const Model&, Batch<T>&,
                                                  const SimulatorOptions&) {
  throw std::runtime_error(cuda_status().reason);
}

template std::unique_ptr<BackendImpl<float>> make_cuda_backend(const Model&, Batch<float>&,
                                                               const SimulatorOptions&);
template std::unique_ptr<BackendImpl<double>> make_cuda_backend(const Model&, Batch<double>&,
                                                                const SimulatorOptions&);

}  // namespace zwang
