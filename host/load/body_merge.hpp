// Frames and masses of bodies at load: frames composed (MJCF meshes and geoms, bodies merged
// into their parents by <compiler fusestatic> or URDF fixed joints), inertia tensors as
// matrices, two masses joined.
#pragma once

#include <Eigen/Core>

#include "zwang/model.hpp"

namespace zwang {

// a frame given in another: its origin and orientation there
struct FramePose {
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
};

// mass, centre of mass and inertia about it, in the body frame
struct BodyMass {
  double mass = 0;
  Vec3d com{0, 0, 0};
  Inertia6 inertia{0, 0, 0, 0, 0, 0};
};

// (pos, quat) ← (pos + R(quat) add_pos, quat ⊗ add_quat), MuJoCo's mjuu_frameaccum
void accumulate(Vec3d& pos, Quatd& quat, const Vec3d& add_pos, const Quatd& add_quat);
// a frame (p, q) given in frame f, in the frame that f is given in: (p_f + R_f p, q_f q)
void to_outer(const FramePose& f, Vec3d& pos, Quatd& quat);

// the symmetric matrix of xx yy zz xy xz yz
Eigen::Matrix3d inertia_matrix(const Inertia6& i);

// `child`, whose frame is f in the parent's, joined to `parent`, in the parent's frame:
// m = m_p + m_c, c = (m_p c_p + m_c c_c) / m, I = Σ_k R_k I_k R_kᵀ + m_k (|d_k|² E − d_k d_kᵀ)
// with d_k = c_k − c; no mass at all below MuJoCo's 1e-15
BodyMass joined(const BodyMass& parent, const BodyMass& child, const FramePose& f);

}  // namespace zwang
