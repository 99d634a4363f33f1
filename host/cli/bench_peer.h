/* The plain-C interface between `zwang bench` and a peer engine built as a plugin (a shared
 * library loaded with dlopen): MuJoCo 4.0, MuJoCo 2.2.2 or Pinocchio.  MuJoCo 4.0 and 2.2.2
 * export the same C names with different struct layouts, so each peer lives in its own library
 * and no C++ type crosses the boundary.
 *
 * A plugin exports one function, zwang_peer_api(), which returns its table of functions.  The
 * bench opens a peer once per (model, mode, instances, threads): open() loads the model, applies
 * the request's options and allocates one data structure per instance; time() then sets every
 * instance to the request's initial state, untimed, and returns the seconds taken by `calls`
 * calls of `steps_per_call` steps (or forward evaluations) of every instance in an OpenMP loop;
 * close() frees it all.  The request's strings and arrays need to live only through open().
 * Messages go into the caller's buffers, never to stdout.
 */
#ifndef ZWANG_BENCH_PEER_H_
#define ZWANG_BENCH_PEER_H_

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ZWANG_PEER_ABI_VERSION 1
#define ZWANG_PEER_ENTRY "zwang_peer_api"
#define ZWANG_PEER_MESSAGE_SIZE 512

enum ZwangPeerMode {
  ZWANG_PEER_STEP = 0,    /* steps of the model's integrator (MuJoCo: mj_step) */
  ZWANG_PEER_FORWARD = 1, /* forward dynamics at the state (MuJoCo: mj_forward, Pinocchio: aba) */
};

struct ZwangPeerRequest {
  int abi_version;        /* ZWANG_PEER_ABI_VERSION */
  const char* model_file; /* MJCF for MuJoCo, URDF for Pinocchio */
  int floating_base;      /* URDF: a free joint between the world and the root link */
  int mode;               /* ZwangPeerMode */
  long long instances;
  int threads; /* OpenMP threads, at least 1 */
  /* zwang's sizes and joint names (njnt), which the peer's model must match */
  int nq, nv, njnt;
  const char* const* jnt_name;
  const int* jnt_type;    /* MuJoCo's mjtJoint numbering (njnt) */
  const int* jnt_qposadr; /* first coordinate in qpos (njnt) */
  /* initial states, instance-major: qpos (instances x nq, quaternions w x y z), qvel
   * (instances x nv) */
  const double* qpos;
  const double* qvel;
  /* the options zwang runs with, which the peer adopts */
  double timestep;   /* (s) */
  int integrator;    /* 0 Euler, 1 RK4, 2 implicit, 3 implicitfast (MuJoCo's numbers) */
  int disableflags;  /* bits 0-4: constraint, equality, frictionloss, limit, contact */
  int iterations;    /* constraint solver iterations at most */
  double tolerance;  /* constraint solver tolerance */
  double gravity[3]; /* (m/s²) */
};

struct ZwangPeerText {
  char text[ZWANG_PEER_MESSAGE_SIZE];
};

typedef struct ZwangPeer ZwangPeer;

struct ZwangPeerApi {
  int abi_version; /* ZWANG_PEER_ABI_VERSION */
  /* the library's version, e.g. "MuJoCo 4.0.0" */
  const char* (*version)(void);
  /* null on failure, with the reason in error; note tells what the peer changed to mirror the
   * request (e.g. the constraint solver), empty if nothing */
  ZwangPeer* (*open)(const struct ZwangPeerRequest* request, struct ZwangPeerText* note,
                     struct ZwangPeerText* error);
  /* seconds, or a negative number with the reason in error; seconds with a message in error
   * is a warning (e.g. instances that diverged) */
  double (*time)(ZwangPeer* peer, int steps_per_call, int calls, struct ZwangPeerText* error);
  void (*close)(ZwangPeer* peer);
};

typedef const struct ZwangPeerApi* (*ZwangPeerEntry)(void);

/* MemAvailable of /proc/meminfo in bytes, 0 where there is none: the bench and the peers refuse
 * what would not fit, rather than swap or meet the kernel's out-of-memory killer */
static inline double zwang_peer_available_bytes(void) {
  FILE* f = fopen("/proc/meminfo", "r");
  char line[256];
  double kib = 0;
  if (f == NULL) return 0;
  while (fgets(line, sizeof(line), f) != NULL) {
    if (sscanf(line, "MemAvailable: %lf kB", &kib) == 1) break;
  }
  fclose(f);
  return kib * 1024;
}

#ifdef __cplusplus
}
#endif

#endif /* ZWANG_BENCH_PEER_H_ */
