// MuJoCo as a peer of `zwang bench` (host/cli/bench_peer.h): one mjData per instance, stepped
// in an OpenMP loop.  Built once against MuJoCo 4.0 (the PyPI wheel) and once against 2.2.2
// (Debian's libmujoco-dev), each a plugin of its own, since both export the same C names.
//
// The model takes zwang's options: timestep, integrator, gravity, the five constraint flags,
// iterations and tolerance; the solver is Newton, the only one zwang has; the fluid forces are
// the file's, as zwang's.  MuJoCo keeps its warm start.
#include <mujoco/mujoco.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "host/cli/bench_peer.h"
#include "peer_common.hpp"

struct ZwangPeer {
  mjModel* model = nullptr;
  std::vector<mjData*> data;
  std::vector<double> qpos, qvel;  // initial states (instances x nq, instances x nv)
  int mode = ZWANG_PEER_STEP;
  int threads = 1;
};

namespace {

// zwang's DisableBit flags are MuJoCo's bits 0 to 4, in both versions
constexpr int kConstraintFlags =
    mjDSBL_CONSTRAINT | mjDSBL_EQUALITY | mjDSBL_FRICTIONLOSS | mjDSBL_LIMIT | mjDSBL_CONTACT;
static_assert(kConstraintFlags == 31, "MuJoCo's first five disable bits moved");

using zwang_peer::put;

void close_peer(ZwangPeer* p) {
  if (p == nullptr) return;
  for (mjData* d : p->data) mj_deleteData(d);
  if (p->model != nullptr) mj_deleteModel(p->model);
  delete p;
}

// bytes of one mjData: its buffer and its arena (2.x: its stack)
double data_bytes(const mjData* d) {
#if mjVERSION_HEADER >= 300
  return static_cast<double>(d->nbuffer) + static_cast<double>(d->narena);
#else
  return static_cast<double>(d->nbuffer) + static_cast<double>(d->nstack) * sizeof(mjtNum);
#endif
}

std::string gib(double bytes) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.1f", bytes / (1024.0 * 1024.0 * 1024.0));
  return text;
}

// empty if MuJoCo's model has zwang's sizes and joints, else what differs
std::string compare(const mjModel* m, const ZwangPeerRequest* r) {
  if (m->nq != r->nq || m->nv != r->nv || m->njnt != r->njnt) {
    return "MuJoCo's nq, nv, njnt " + std::to_string(m->nq) + ", " + std::to_string(m->nv) + ", " +
           std::to_string(m->njnt) + " differ from zwang's " + std::to_string(r->nq) + ", " +
           std::to_string(r->nv) + ", " + std::to_string(r->njnt);
  }
  for (int j = 0; j < m->njnt; ++j) {
    const char* name = mj_id2name(m, mjOBJ_JOINT, j);
    if (m->jnt_type[j] != r->jnt_type[j] || (name != nullptr && std::strcmp(name, r->jnt_name[j])))
      return "joint " + std::to_string(j) + " differs from zwang's " + r->jnt_name[j];
  }
  return "";
}

ZwangPeer* open_peer(const ZwangPeerRequest* r, ZwangPeerText* note, ZwangPeerText* error) {
  if (!zwang_peer::request_matches(r, note, error)) return nullptr;
  if (mj_version() != mjVERSION_HEADER) {
    put(error, "libmujoco " + std::to_string(mj_version()) + " does not match its header " +
                   std::to_string(mjVERSION_HEADER));
    return nullptr;
  }
  auto* p = new ZwangPeer;
  char message[1000] = "";
  p->model = mj_loadXML(r->model_file, nullptr, message, sizeof(message));
  if (p->model == nullptr) {
    put(error, std::string("cannot load ") + r->model_file + ": " + message);
    close_peer(p);
    return nullptr;
  }
  mjModel* m = p->model;
  if (const std::string differs = compare(m, r); !differs.empty()) {
    put(error, differs);
    close_peer(p);
    return nullptr;
  }
  std::string changed;
  if (m->opt.solver != mjSOL_NEWTON) {
    changed = m->opt.solver == mjSOL_PGS ? "solver PGS -> Newton" : "solver CG -> Newton";
    m->opt.solver = mjSOL_NEWTON;
  }
  for (int k = 0; k < 3; ++k) m->opt.gravity[k] = r->gravity[k];
  m->opt.timestep = r->timestep;
#if mjVERSION_HEADER >= 300
  m->opt.integrator = r->integrator == 1   ? mjINT_RK4
                      : r->integrator == 2 ? mjINT_IMPLICIT
                      : r->integrator == 3 ? mjINT_IMPLICITFAST
                                           : mjINT_EULER;
#else
  // MuJoCo 2.2.2, the older peer, has no implicitfast
  if (r->integrator == 3) {
    put(error, "this MuJoCo (before 3.0) is not asked for implicitfast");
    close_peer(p);
    return nullptr;
  }
  m->opt.integrator = r->integrator == 1   ? mjINT_RK4
                      : r->integrator == 2 ? mjINT_IMPLICIT
                                           : mjINT_EULER;
#endif
  m->opt.disableflags =
      (m->opt.disableflags & ~kConstraintFlags) | (r->disableflags & kConstraintFlags);
  m->opt.iterations = r->iterations;
  m->opt.tolerance = r->tolerance;
  put(note, changed);

  p->mode = r->mode;
  p->threads = r->threads < 1 ? 1 : r->threads;
  p->qpos.assign(r->qpos, r->qpos + r->instances * r->nq);
  p->qvel.assign(r->qvel, r->qvel + r->instances * r->nv);
  p->data.assign(r->instances, nullptr);
  for (long long i = 0; i < r->instances; ++i) {
    p->data[i] = mj_makeData(m);
    if (i == 0 && p->data[0] != nullptr) {
      // an mjData per instance: refuse what would not fit, rather than swap or meet the OOM killer
      const double need = static_cast<double>(data_bytes(p->data[0])) * r->instances;
      const double available = zwang_peer_available_bytes();
      if (available > 0 && need > 0.8 * available) {
        put(error, std::to_string(r->instances) + " mjData need " + gib(need) +
                       " GiB, more than 80% of the " + gib(available) + " GiB available");
        close_peer(p);
        return nullptr;
      }
    }
    if (p->data[i] == nullptr) {
      put(error, "mj_makeData failed at instance " + std::to_string(i));
      close_peer(p);
      return nullptr;
    }
  }
  return p;
}

double time_peer(ZwangPeer* p, int steps_per_call, int calls, ZwangPeerText* error) {
  put(error, "");
  const mjModel* m = p->model;
  const long long n = static_cast<long long>(p->data.size());
#pragma omp parallel for num_threads(p->threads) schedule(static)
  for (long long i = 0; i < n; ++i) {
    mjData* d = p->data[i];
    mj_resetData(m, d);
    std::memcpy(d->qpos, &p->qpos[i * m->nq], sizeof(double) * m->nq);
    std::memcpy(d->qvel, &p->qvel[i * m->nv], sizeof(double) * m->nv);
  }
  const bool step = p->mode == ZWANG_PEER_STEP;
  const auto t0 = std::chrono::steady_clock::now();
  for (int c = 0; c < calls; ++c) {
#pragma omp parallel for num_threads(p->threads) schedule(static)
    for (long long i = 0; i < n; ++i) {
      for (int s = 0; s < steps_per_call; ++s) {
        if (step) {
          mj_step(m, p->data[i]);
        } else {
          mj_forward(m, p->data[i]);
        }
      }
    }
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  // MuJoCo resets an instance whose acceleration is not finite, and goes on
  long long diverged = 0;
  for (const mjData* d : p->data) diverged += d->warning[mjWARN_BADQACC].number > 0;
  if (diverged > 0) put(error, std::to_string(diverged) + " instance(s) diverged and were reset");
  return seconds;
}

const char* version() {
  static const std::string text = std::string("MuJoCo ") + mj_versionString();
  return text.c_str();
}

const ZwangPeerApi kApi = {ZWANG_PEER_ABI_VERSION, version, open_peer, time_peer, close_peer};

}  // namespace

extern "C" __attribute__((visibility("default"))) const ZwangPeerApi* zwang_peer_api() {
  return &kApi;
}
