// A kinematic tree of rigid bodies with joints, actuators, constraints, contacts and
// sensors, shared by every instance of a batch: its arrays (kernels/model_fields.h) and the
// functions that read them. ModelBuilder (zwang/builder.hpp) makes one from the specs of
// zwang/spec.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kernels/layout.h"
#include "kernels/model_fields.h"
#include "kernels/types.h"
#include "zwang/spec.hpp"

namespace zwang {

// The shape of a Model array: rows, then the widths of a row (at most three numbers).
struct ArrayShape {
  int ndim = 0;
  std::array<std::int64_t, 3> dim{};

  template <class... N>
  static ArrayShape of(N... n) {
    static_assert(sizeof...(N) >= 1 && sizeof...(N) <= 3);
    return {static_cast<int>(sizeof...(N)), {static_cast<std::int64_t>(n)...}};
  }
  // Values of the array: the product of the dims (INT64_MAX past it).
  std::int64_t count() const {
    std::int64_t c = 1;
    for (int k = 0; k < ndim; ++k) {
      if (__builtin_mul_overflow(c, dim[k], &c)) return INT64_MAX;
    }
    return c;
  }
};

// A validated model.  Arrays follow MuJoCo's names and layout: body 0 is the world;
// joints are numbered body by body; qpos/qvel addresses follow joint order (free: 7/6,
// ball: 4/3, hinge and slide: 1/1).
struct Model {
  int nq = 0;      // generalized coordinates
  int nv = 0;      // degrees of freedom
  int nu = 0;      // actuators
  int na = 0;      // activations: the actuators with dynamics, in actuator order
  int nbody = 1;   // bodies, the world included
  int njnt = 0;    // joints
  int nmocap = 0;  // mocap bodies: children of the world posed per instance
  int ntendon = 0;
  int neq = 0;     // equality constraints
  int ndrive = 0;  // driven joints
  int nnhc = 0;    // non-holonomic constraints
  int ngeom = 0;
  // meshes (MuJoCo's <mesh> assets, in their order): the convex hull of each, in the frame of
  // its geoms (MuJoCo's mesh frame: centred at the mesh's centre of mass, along its principal
  // axes); kept for the narrow phase, which has no mesh pairs
  int nmesh = 0;
  // height fields (MuJoCo's <hfield> assets, in their order), elevations scaled to [0, 1]
  int nhfield = 0;
  int npair = 0;     // explicit geom pairs (MuJoCo's <pair>)
  int nexclude = 0;  // excluded body pairs (<exclude>)
  // sites: frames fixed to bodies (MuJoCo's <site>), in MuJoCo's order: bodies as numbered, a
  // body's sites in the order they were added
  int nsite = 0;
  // bodies merged at load into the body they are welded to (MJCF <compiler fusestatic>, URDF
  // LoadOptions::fuse_static), in body order (MJCF: the document's; URDF: depth-first, as the
  // bodies): no longer bodies of the model, but their frames stay known in the body that took
  // them, and zwang::derive gives their world poses and velocities (Derived::kFusedXpos ...) as
  // MuJoCo gives those of the bodies before merging
  int nfused = 0;
  // sensors (MuJoCo's <sensor>), in the order they were added: sensor i writes sensor_dim[i]
  // values at sensor_adr[i] of each instance's `sensordata`
  int nsensor = 0;
  int nsensordata = 0;  // Σ sensor_dim
  // keyframes (MuJoCo's <keyframe>), complete: every array has its values for every key
  int nkey = 0;

  double timestep = 0.002;  // (s)
  Integrator integrator = Integrator::kEuler;
  Vec3d gravity{0, 0, -9.81};  // (m/s²)
  Vec3d magnetic{0, -0.5, 0};  // magnetic field, world (T): magnetometers
  // the medium the bodies move in (MuJoCo's <option density viscosity wind>): fluid forces act
  // where density or viscosity is positive (kernels/fluid.h); each instance's are parameters
  double density = 0;    // (kg/m³)
  double viscosity = 0;  // (Pa s)
  Vec3d wind{0, 0, 0};   // velocity of the medium, world (m/s)
  // constraint solver (MuJoCo's <option iterations tolerance> and <flag>)
  int iterations = 100;     // Newton iterations at most
  double tolerance = 1e-8;  // on the scaled gradient norm
  int disableflags = 0;     // DisableBit
  // contacts
  Cone cone = Cone::kPyramidal;
  double impratio = 1;  // frictional-to-normal impedance ratio (MuJoCo's impratio)
  ContactMargin contact_margin = ContactMargin::kSum;  // margin and gap of a geom pair's contact
  WrapRules wrap_rules = WrapRules::kMujoco4;          // tendons past a geom with a side site
  Rules rules = Rules::kMujoco4;                       // connects, welds, contact pairs (Rules)
  int nconmax = 0;  // contacts per instance at most; 0: the bound the model implies

  // the arrays of kernels/model_fields.h, with their meanings and shapes there
#define ZW_X(use, type, name, shape, meaning) std::vector<type> name;
  ZW_MODEL_ARRAYS(ZW_X)
#undef ZW_X

  // counts that are the lengths of arrays: validate() checks each body's range in tree_dof
  // and each tendon's in the wrap_ arrays
  int njac() const {
    return static_cast<int>(tree_dof.size());
  }
  int nwrap() const {
    return static_cast<int>(wrap_type.size());
  }
  int nmeshvert() const {
    return static_cast<int>(mesh_vert.size() / 3);
  }
  int nmeshface() const {
    return static_cast<int>(mesh_face.size() / 3);
  }
  int nmeshpoly() const {
    return static_cast<int>(mesh_polyvertnum.size());
  }
  int nmeshpolyvert() const {
    return static_cast<int>(mesh_polyvert.size());
  }
  int nmeshpolymap() const {
    return static_cast<int>(mesh_polymap.size());
  }
  int nhfielddata() const {
    return static_cast<int>(hfield_data.size());
  }

  // f(name, array, shape, text) for each array of kernels/model_fields.h, in its order:
  // the shape its counts give, and its meaning followed by its shape, "mass (nbody)".
  template <class F>
  void for_each_array(F&& f) const {
#define ZW_X(use, type, name, shape, meaning) \
  f(#name, name, ArrayShape::of shape, meaning " " #shape);
    ZW_MODEL_ARRAYS(ZW_X)
#undef ZW_X
  }
  // the names of the objects of a type (kBody and kXBody: the bodies), nullptr for a type whose
  // objects have no names (kUnknown, kDof, kCamera)
  const std::vector<std::string>* names(ObjType type) const;
  // index of the object of that type and name, -1 if there is none and for "" (MuJoCo 3's and
  // 4's mj_name2id)
  int id(ObjType type, std::string_view name) const;
  // index of a merged body in the fused_ arrays, -1 if there is none (also for "", which names
  // every unnamed merged body)
  int fused_id(std::string_view name) const;
  // per-kind lookups, deprecated: body_id(name) is id(ObjType::kBody, name)
  // clang-format off
#define ZW_ID_ALIASES(X)                                                                   \
  X(body, kBody) X(joint, kJoint) X(actuator, kActuator) X(tendon, kTendon)               \
  X(equality, kEquality) X(geom, kGeom) X(site, kSite) X(sensor, kSensor) X(key, kKey)    \
  X(mesh, kMesh)
  // clang-format on
#define ZW_X(kind, type)                                                                      \
  [[deprecated("id(ObjType::" #type ", name)")]] int kind##_id(std::string_view name) const { \
    return id(ObjType::type, name);                                                           \
  }
  ZW_ID_ALIASES(ZW_X)
#undef ZW_X
#undef ZW_ID_ALIASES

  // The model as MJCF that load_mjcf reads back as this Model (with the LoadOptions it was
  // loaded with: rules, wrap_rules and contact_margin are not part of the file) and MuJoCo loads
  // for drawing: every value explicit, angles in radians, each body's mass properties as an
  // <inertial>, meshes as their convex hulls in the frame of their geoms (numeric hull:NAME, which
  // tells zwang not to re-centre them), zwang's drives, hard equalities and non-holonomic
  // constraints as the <custom> numerics load_mjcf reads.  Not written: bodies merged at load
  // (fused_*), rendering attributes (colours, materials, cameras, lights).  ModelError when the
  // bodies are not numbered depth first, or geoms and sites not body by body, as MJCF numbers
  // them.
  std::string to_mjcf() const;

  Sizes sizes() const;
  // ModelError naming the field when the arrays do not fit the sizes, the tree or one
  // another (a Model is a plain struct and may have been edited after build()).
  void validate() const;
  double total_mass() const;
};

// The parameters of a contact between two geoms by MuJoCo's rules: with different
// priorities the higher one's; else condim and friction the larger, solref and solimp mixed by
// solmix (solref of the direct form: the smaller); margin and gap, whatever the priorities, the
// larger or the sum as Model::contact_margin says.
struct ContactMix {
  int condim;
  std::array<double, 5> friction;  // tangent 1, tangent 2, torsion, roll 1, roll 2
  SolRef solref;
  SolImp solimp;
  double margin, gap;
};
ContactMix mix_contact(const Model& model, int geom1, int geom2);

// The default poses of the mocap bodies (MuJoCo's mj_resetData): each one's body_pos and
// body_quat, in mocap order (nmocap x 3, nmocap x 4).
std::vector<double> mocap_pos0(const Model& model);
std::vector<double> mocap_quat0(const Model& model);

// Length of every tendon at a configuration (ntendon), the mocap bodies at their default
// poses: fixed Σ_i coef_i qpos[jnt_qposadr[j_i]], spatial the path through its sites;
// std::invalid_argument if qpos does not have nq values.
std::vector<double> tendon_lengths(const Model& model, std::span<const double> qpos);

}  // namespace zwang
