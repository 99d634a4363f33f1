// The MJCF reader's body tree: bodies, joints, geoms, sites as parsed, before they become a
// Model.
#pragma once

#include <optional>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "host/load/body_merge.hpp"
#include "host/mjcf/defaults.hpp"

namespace zwang::mjcf {

struct Joint {
  pugi::xml_node node;
  std::string name;
  JointDef def;
};

// what a mesh geom takes from its mesh for its inertia
struct GeomMesh {
  int mesh = -1;       // in the document's meshes
  double volume = 0;   // the volume its mass is spread over (MuJoCo's rule)
  Vec3d box{0, 0, 0};  // half-sizes of the box with its principal moments per mass
  // that box's centre and axes in the geom frame: the geom frame itself, except for a shell
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  std::string defect;  // why the mesh has no inertia; an error where it would be used
};

struct Geom {
  pugi::xml_node node;
  std::string name;
  GeomDef def;
  std::optional<GeomMesh> mesh;  // mesh geoms
};

struct Site {
  pugi::xml_node node;
  std::string name;
  SiteDef def;
};

struct Inertial {
  pugi::xml_node node;
  double mass = 0;
  Vec3d pos{0, 0, 0};
  Inertia6 inertia{0, 0, 0, 0, 0, 0};  // body frame
  std::optional<Quatd> iquat;          // its principal axes, where diaginertia gives them
};

struct Body {
  pugi::xml_node node;
  std::string name;
  int parent = -1;
  bool is_static = true;  // no joint between it and the world
  bool mocap = false;     // posed by each instance (a child of the world without joints)
  double gravcomp = 0;    // gravity compensation, a fraction of its weight
  bool fuse = true;       // fuse="auto": merged into its parent under fusestatic when it may be
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  std::vector<Joint> joints;
  std::vector<Geom> geoms;
  std::vector<Site> sites;
  std::optional<Inertial> inertial;
};

// the size values a geom's shape needs, all positive; an error naming them otherwise
void check_geom_size(Attrs& a, const GeomDef& g);

// the world (index 0) and its descendants in document order
std::vector<Body> read_bodies(Context& ctx, std::span<const pugi::xml_node> worldbodies,
                              const Defaults& defaults, const Compiler& c);

struct MassProperties {
  double mass = 0;
  Vec3d com{0, 0, 0};
  Inertia6 inertia{0, 0, 0, 0, 0, 0};  // about the COM, body frame
  // its principal axes where MuJoCo takes them from the model (diaginertia's frame, a single
  // geom's), else none: the builder's (BodySpec::iquat)
  std::optional<Quatd> iquat;
  bool bounded = false;  // boundmass or boundinertia raised them
};

// mass, COM and inertia of every body by MuJoCo's rules: geoms or <inertial> as
// inertiafromgeom says, then boundmass/boundinertia; an error for settotalmass without mass
std::vector<MassProperties> mass_properties(Context& ctx, const std::vector<Body>& bodies,
                                            const Compiler& c);
// settotalmass: every mass and inertia scaled by one factor, on the bodies that stay after
// fuse_static(), as MuJoCo scales the compiled model (mass_properties() refuses a model without
// mass; where fuse_static() gave all of it to the world, nothing is scaled); returns the factor
double set_total_mass(const Compiler& c, std::vector<MassProperties>& mass);

// a body that fuse_static() merged: its name, the index of the body that took it among those
// that stay, its frame, mass and centre of mass in that body's frame
struct FusedBody {
  std::string name;
  int body;
  FramePose pose;
  double mass;
  Vec3d ipos;
};

// <compiler fusestatic="true">, after mass_properties(): the bodies without joints that MuJoCo
// 4.0 merges (host/mjcf/fuse.cc) merged into their parents, with their mass, geoms, sites and
// child bodies; `fluid`: the option's density or viscosity is not zero.  Returns the merged
// bodies in document order.
std::vector<FusedBody> fuse_static(Context& ctx, pugi::xml_node root, const Compiler& c, bool fluid,
                                   std::vector<Body>& bodies, std::vector<MassProperties>& mass);

}  // namespace zwang::mjcf
