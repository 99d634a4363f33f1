// The MJCF reader's <compiler> settings and the orientations they govern.
#pragma once

#include <array>
#include <optional>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "host/mjcf/context.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

enum class InertiaFromGeom { kFalse, kTrue, kAuto };

struct Compiler {
  pugi::xml_node node;           // the last <compiler>, for messages
  bool degree = true;            // angle="degree": euler, axisangle and hinge values in degrees
  std::string eulerseq = "xyz";  // lowercase: axes that move with the frame; uppercase: fixed
  InertiaFromGeom inertiafromgeom = InertiaFromGeom::kAuto;
  // a nonzero range makes a joint, tendon or actuator limited where `limited` is not given: the
  // default of MuJoCo 2.3 and later (2.2.2 refused such a range)
  bool autolimits = true;
  double settotalmass = -1;
  double boundmass = 0;
  double boundinertia = 0;
  std::array<double, 2> inertiagrouprange{0, 5};
  // meshes: files relative to meshdir, else assetdir, else the model's directory (strippath:
  // their directories dropped); 2.2.2's signed-volume inertia; primitives fitted to a mesh's
  // bounding box instead of its inertia box
  std::string meshdir, assetdir;
  bool strippath = false;
  bool exactmeshinertia = false;
  bool fitaabb = false;
  // bodies without joints merged into their parents (host/mjcf/fuse.cc)
  bool fusestatic = false;
  // <lengthrange>: which actuators need a length range (mode none muscle muscleuser all), and
  // where it may come from without simulation (a given one, the joint's limits)
  int lengthrange_mode = 1;
  bool lengthrange_useexisting = true, lengthrange_uselimit = false;

  double angle_scale() const;
};

void read_compiler(Attrs& a, Compiler& c);
// <compiler><lengthrange>
void read_lengthrange(Attrs& a, Compiler& c);

// <option><flag>: MuJoCo 2.2.2's names and MuJoCo 3 and 4's, each value "enable" or
// "disable"; the DisableBit flags into `disableflags`, a warning or an error naming what differs
// for the features zwang lacks, an error for any other attribute
void read_flag(Context& ctx, pugi::xml_node node, int& disableflags);

// <keyframe>'s <key> elements into the builder, then default keys up to `nkey` (<size nkey>);
// the <key> elements in key order, for the builder's messages about them
std::vector<pugi::xml_node> read_keyframes(Context& ctx, std::span<const pugi::xml_node> keys,
                                           int nkey, ModelBuilder& builder);

// the orientation given by quat, axisangle, euler, xyaxes or zaxis; nullopt when none is
// given; an error when more than one is
std::optional<Quatd> read_orientation(Attrs& a, const Compiler& c);
// the rotation taking (0, 0, 1) to v by the smallest angle
Quatd z_to(const Vec3d& v);

}  // namespace zwang::mjcf
