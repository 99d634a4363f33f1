// What the URDF loader makes of a moving link's inertia (a link that a joint moves; the inertia
// of a link welded to the world never enters H and is taken as it is).
//
// URDF importers (Pinocchio, MuJoCo's) take tensors that are no rigid body's, and real files
// carry them: CAD rounding noise (principal moments of -1e-20), tensors typed by hand that
// break A + B ≥ C, and pybullet's "mass 0" links that still list an inertia.  zwang takes each as
// the file gives it, as Pinocchio does, with one warning naming the link, except:
//  - a negative principal moment no larger than kInertiaRoundingTolerance times the inertia
//    scale of the file (the largest principal moment of the link or of any link in the file) is
//    rounding: it is set to 0, silently;
//  - with LoadOptions::balance_inertia, a tensor that is no rigid body's becomes MuJoCo's
//    balanced one (negative moments 0, then each moment the mean of the three), with a warning.
// Whether the result makes H positive definite is ModelBuilder's check (InertiaRule::kMassMatrix).
#pragma once

#include <Eigen/Core>
#include <string>

#include "zwang/model.hpp"

namespace zwang {

// Rounding noise seen in real files reaches 1e-19 of the file's scale (iCub, whose tensors are
// entirely noise) and 3e-16 of the link's own largest moment (ANYmal); the smallest negative
// moment that is not noise is 6e-8 of the file's scale (TIAGo's antennas).  1e-12 sits between
// them with four orders of margin each way, and what it changes moves H by at most 1e-12 of the
// largest inertia in the file.
inline constexpr double kInertiaRoundingTolerance = 1e-12;

// the largest principal moment of a tensor (0 for a point mass)
double largest_principal_moment(const Eigen::Matrix3d& tensor);

struct UrdfLinkInertia {
  Inertia6 inertia;     // xx yy zz xy xz yz, to give the body
  std::string problem;  // empty, or what is wrong with it and what was done, for the warning
};

// `tensor` about the COM in the link frame; `scale` the file's largest principal moment
UrdfLinkInertia moving_link_inertia(const Eigen::Matrix3d& tensor, double mass, double scale,
                                    bool balance);

}  // namespace zwang
