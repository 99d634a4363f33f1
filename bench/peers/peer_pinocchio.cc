// Pinocchio as a peer of `zwang bench` (host/cli/bench_peer.h): forward dynamics by the
// articulated-body algorithm, aba(q, v, τ), with one pinocchio::Data per instance in an OpenMP
// loop, against zwang's forward().  τ = −damping ∘ v, the passive force zwang adds from the
// URDF's <dynamics damping>; Pinocchio has no constraints, so the bench switches zwang's off.
//
// zwang's coordinates become Pinocchio's joint by joint: a free joint's or ball's quaternion
// (w x y z) is stored x y z w, and a continuous joint's angle θ as (cos θ, sin θ).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <memory>
#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/parsers/urdf.hpp>
#include <string>
#include <vector>

#include "host/cli/bench_peer.h"
#include "peer_common.hpp"

struct ZwangPeer {
  pinocchio::Model model;
  std::vector<std::unique_ptr<pinocchio::Data>> data;
  Eigen::MatrixXd q, v, tau;  // per instance, one column each
  int threads = 1;
};

namespace {

constexpr int kFree = 0, kBall = 1, kFixed = 4;  // MuJoCo's mjtJoint

using zwang_peer::put;

// Pinocchio's configuration of one instance from zwang's; throws on a joint that differs
Eigen::VectorXd convert(const pinocchio::Model& m, const ZwangPeerRequest* r, const double* qpos) {
  Eigen::VectorXd q(m.nq);
  int zj = 0;
  for (pinocchio::JointIndex j = 1; j < m.joints.size(); ++j, ++zj) {
    while (zj < r->njnt && r->jnt_type[zj] == kFixed) ++zj;
    if (zj == r->njnt) throw std::runtime_error("Pinocchio has more joints than zwang");
    const auto& joint = m.joints[j];
    const int type = r->jnt_type[zj];
    if (type != kFree && m.names[j] != r->jnt_name[zj]) {
      throw std::runtime_error("Pinocchio's joint " + m.names[j] + " is zwang's " +
                               r->jnt_name[zj]);
    }
    const double* z = qpos + r->jnt_qposadr[zj];
    const int iq = joint.idx_q();
    if (type == kFree && joint.nq() == 7) {
      q.segment<3>(iq) << z[0], z[1], z[2];
      q.segment<4>(iq + 3) << z[4], z[5], z[6], z[3];
    } else if (type == kBall && joint.nq() == 4) {
      q.segment<4>(iq) << z[1], z[2], z[3], z[0];
    } else if (type > kBall && joint.nv() == 1 && joint.nq() == 2) {
      q.segment<2>(iq) << std::cos(z[0]), std::sin(z[0]);
    } else if (type > kBall && joint.nv() == 1 && joint.nq() == 1) {
      q[iq] = z[0];
    } else {
      throw std::runtime_error("Pinocchio's joint " + m.names[j] + " (" + joint.shortname() +
                               ") has no counterpart in zwang's joint " + r->jnt_name[zj]);
    }
  }
  return q;
}

void close_peer(ZwangPeer* p) {
  delete p;
}

ZwangPeer* open_peer(const ZwangPeerRequest* r, ZwangPeerText* note, ZwangPeerText* error) {
  if (!zwang_peer::request_matches(r, note, error)) return nullptr;
  if (r->mode != ZWANG_PEER_FORWARD) {
    put(error, "Pinocchio runs forward dynamics only");
    return nullptr;
  }
  auto p = std::make_unique<ZwangPeer>();
  try {
    if (r->floating_base) {
      pinocchio::urdf::buildModel(r->model_file, pinocchio::JointModelFreeFlyer(), p->model);
    } else {
      pinocchio::urdf::buildModel(r->model_file, p->model);
    }
    const pinocchio::Model& m = p->model;
    if (m.nv != r->nv) {
      put(error, "Pinocchio's nv " + std::to_string(m.nv) + " differs from zwang's " +
                     std::to_string(r->nv));
      return nullptr;
    }
    p->model.gravity.linear(Eigen::Vector3d(r->gravity[0], r->gravity[1], r->gravity[2]));
    p->threads = r->threads < 1 ? 1 : r->threads;
    p->q.resize(m.nq, r->instances);
    p->v.resize(m.nv, r->instances);
    p->tau.resize(m.nv, r->instances);
    for (long long i = 0; i < r->instances; ++i) {
      p->q.col(i) = convert(m, r, r->qpos + i * r->nq);
      p->v.col(i) = Eigen::Map<const Eigen::VectorXd>(r->qvel + i * r->nv, r->nv);
      p->tau.col(i) = -m.damping.cwiseProduct(p->v.col(i));
      p->data.push_back(std::make_unique<pinocchio::Data>(m));
    }
  } catch (const std::exception& e) {
    put(error, std::string("cannot load ") + r->model_file + ": " + e.what());
    return nullptr;
  }
  return p.release();
}

double time_peer(ZwangPeer* p, int steps_per_call, int calls, ZwangPeerText* error) {
  put(error, "");
  const pinocchio::Model& m = p->model;
  const long long n = static_cast<long long>(p->data.size());
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < calls; ++c) {
#pragma omp parallel for num_threads(p->threads) schedule(static)
    for (long long i = 0; i < n; ++i) {
      for (int s = 0; s < steps_per_call; ++s) {
        pinocchio::aba(m, *p->data[i], p->q.col(i), p->v.col(i), p->tau.col(i));
      }
    }
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

const char* version() {
  return "Pinocchio " PINOCCHIO_VERSION;
}

const ZwangPeerApi kApi = {ZWANG_PEER_ABI_VERSION, version, open_peer, time_peer, close_peer};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ZwangPeerApi* zwang_peer_api() {
  return &kApi;
}
