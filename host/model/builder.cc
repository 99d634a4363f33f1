// ModelBuilder: checks each element and lays the tree out as MuJoCo does.
#include "zwang/builder.hpp"

#include <fmt/format.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <iterator>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>

#include "host/load/body_merge.hpp"
#include "host/mesh/mesh.hpp"
#include "host/model/actuator_constants.hpp"
#include "host/model/constraint_plan.hpp"
#include "host/model/element_name.hpp"
#include "host/model/hard_rows.hpp"
#include "host/model/mass_matrix_check.hpp"
#include "host/model/sensors.hpp"
#include "host/model/size.hpp"
#include "kernels/model_view.h"
#include "zwang/model.hpp"

namespace zwang {
namespace {

bool finite(std::initializer_list<double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}
bool finite(std::span<const double> values) {
  return std::all_of(values.begin(), values.end(), [](double v) { return std::isfinite(v); });
}

std::string body_label(const std::string& name) {
  return fmt::format("body '{}'", name);
}
std::string joint_label(const std::string& name) {
  return fmt::format("joint '{}'", name);
}

Quatd normalized_or_throw(const Quatd& q, const std::string& who) {
  if (!finite({q[0], q[1], q[2], q[3]})) throw ModelError(who + ": quaternion is not finite");
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < 1e-12) throw ModelError(who + ": quaternion has zero length");
  return {q[0] / n, q[1] / n, q[2] / n, q[3] / n};
}

Eigen::Vector3d principal_moments(const Inertia6& inertia) {
  return Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(inertia_matrix(inertia)).eigenvalues();
}

template <class Spec>
void append(std::vector<double>& v, const Spec& a) {
  v.insert(v.end(), a.begin(), a.end());
}

// a height field's elevations as MuJoCo scales them, in float: (e − min) / (max − min), or
// e − min where max − min ≤ 1e-14 (its mjEPS)
std::vector<double> scaled_elevation(const std::vector<double>& elevation) {
  std::vector<float> e(elevation.begin(), elevation.end());
  const auto [lo, hi] = std::minmax_element(e.begin(), e.end());
  const float emin = *lo, range = *hi - *lo;
  for (float& v : e) {
    v -= emin;
    if (static_cast<double>(range) > 1e-14) v /= range;
  }
  return {e.begin(), e.end()};
}

// the frame of `inertia`'s principal axes: `preferred` where it diagonalises it, else the body
// frame where it is diagonal, else its eigenvectors (right-handed)
Quatd principal_frame(const Inertia6& inertia, const std::optional<Quatd>& preferred) {
  const Eigen::Matrix3d i = inertia_matrix(inertia);
  const double tol = 1e-9 * std::max(i.trace(), std::numeric_limits<double>::min());
  const auto diagonal_in = [&](const Eigen::Matrix3d& r) {
    const Eigen::Matrix3d local = r.transpose() * i * r;
    return std::abs(local(1, 0)) <= tol && std::abs(local(2, 0)) <= tol &&
           std::abs(local(2, 1)) <= tol;
  };
  if (preferred) {
    const Eigen::Quaterniond q((*preferred)[0], (*preferred)[1], (*preferred)[2], (*preferred)[3]);
    if (q.norm() > 0 && diagonal_in(q.normalized().toRotationMatrix())) {
      const Eigen::Quaterniond n = q.normalized();
      return {n.w(), n.x(), n.y(), n.z()};
    }
  }
  if (diagonal_in(Eigen::Matrix3d::Identity())) return {1, 0, 0, 0};
  Eigen::Matrix3d v = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(i).eigenvectors();
  if (v.determinant() < 0) v.col(2) = -v.col(2);
  const Eigen::Quaterniond q(v);
  return {q.w(), q.x(), q.y(), q.z()};
}

// Lamb's added-mass coefficient of an ellipsoid of semi-axes (a, b, c) along the axis of a,
//   κ_a = a b c ∫₀^∞ dλ / ((a² + λ)^{3/2} (b² + λ)^{1/2} (c² + λ)^{1/2})
//       = a⁻² ∫₀^∞ dλ / ((1 + λ/a²)^{3/2} (1 + λ/b²)^{1/2} (1 + λ/c²)^{1/2})
// (κ_a + κ_b + κ_c = 2), by MuJoCo's rule, so that the forces are MuJoCo's: the 15-point
// Gauss–Kronrod rule on x ∈ [0, 1] after λ = L x³/(1 − x)², L = (a³ b c)^{2/5}, its nodes and
// weights rounded to 8 decimals as MuJoCo's are.  For flat or slender shapes (aspect ratios of
// hundreds) it is percents off the exact integral (Carlson's ⅔ a b c R_D(b², c², a²)), and
// MuJoCo's value is the model's.
double added_mass_kappa(double a, double b, double c) {
  using Rule = boost::math::quadrature::gauss_kronrod<double, 15>;
  const double scale = std::pow(a * a * a * b * c, 0.4);
  const double ia = 1 / (a * a), ib = 1 / (b * b), ic = 1 / (c * c);
  const auto at = [&](double x) {
    const double lambda = scale * x * x * x / ((1 - x) * (1 - x));
    const double dlambda = scale * x * x * (3 - x) / ((1 - x) * (1 - x) * (1 - x));
    const double u = 1 + lambda * ia;
    return dlambda / (u * std::sqrt(u * (1 + lambda * ib) * (1 + lambda * ic)));
  };
  // the rule's nodes ±t_k on [−1, 1], moved to x = (1 ± t_k)/2 with half the weights
  const auto round8 = [](double v) { return std::round(v * 1e8) / 1e8; };
  double sum = 0;
  for (std::size_t k = 0; k < Rule::abscissa().size(); ++k) {
    const double t = Rule::abscissa()[k], w = round8(Rule::weights()[k] / 2);
    sum += w * at(round8((1 + t) / 2));
    if (t != 0) sum += w * at(round8((1 - t) / 2));
  }
  return sum * ia;
}

// MuJoCo's geom_fluid of an ellipsoid-model geom: interaction 1, the five coefficients, then the
// added mass and added inertia per unit density along its semi-axes
std::array<double, 12> ellipsoid_fluid_coefficients(const GeomSpec& g) {
  const double r = g.size[0];
  const double dx = r;
  const double dy =
      g.type == GeomType::kSphere || g.type == GeomType::kCapsule || g.type == GeomType::kCylinder
          ? r
          : g.size[1];
  const double dz = g.type == GeomType::kSphere     ? r
                    : g.type == GeomType::kCapsule  ? g.size[1] + r
                    : g.type == GeomType::kCylinder ? g.size[1]
                                                    : g.size[2];
  std::array<double, 12> out{
      1, g.fluidcoef[0], g.fluidcoef[1], g.fluidcoef[2], g.fluidcoef[3], g.fluidcoef[4]};
  // a geom without volume (a plane's zero thickness) has no added mass or inertia
  if (!(dx > 0 && dy > 0 && dz > 0)) return out;
  const double volume = 4.0 / 3.0 * std::numbers::pi * dx * dy * dz;
  const double kappa[3] = {added_mass_kappa(dx, dy, dz), added_mass_kappa(dy, dz, dx),
                           added_mass_kappa(dz, dx, dy)};
  const double axis[3] = {dx, dy, dz};
  constexpr double kEps = 1e-14;
  for (int i = 0; i < 3; ++i) {
    // the added mass V κ_i/(2 − κ_i), and the added moment of inertia about axis i (j, k the
    // others) V/5 (s_j² − s_k²)² |κ_k − κ_j| / |2 (s_j² − s_k²) + (s_j² + s_k²)(κ_j − κ_k)|
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    const double sj = axis[j] * axis[j], sk = axis[k] * axis[k];
    out[6 + i] = volume * kappa[i] / std::max(kEps, 2 - kappa[i]);
    out[9 + i] = volume / 5 * (sj - sk) * (sj - sk) * std::abs(kappa[k] - kappa[j]) /
                 std::max(kEps, std::abs(2 * (sj - sk) + (sj + sk) * (kappa[j] - kappa[k])));
  }
  return out;
}

}  // namespace

// bodies on joints need positive principal moments, which build() checks once the joints are
// known
void check_inertia(const Inertia6& inertia, double mass, const std::string& who) {
  for (double v : inertia) {
    if (!std::isfinite(v)) throw ModelError(who + ": inertia is not finite");
  }
  const bool zero = std::all_of(inertia.begin(), inertia.end(), [](double v) { return v == 0; });
  if (zero) return;
  if (mass == 0) throw ModelError(who + ": a body with zero mass must have zero inertia");
  const Eigen::Vector3d ev = principal_moments(inertia);
  if (ev[0] < -1e-12 * ev[2]) {
    throw ModelError(fmt::format(
        "{}: inertia is not positive semidefinite (principal moments {:.6g} {:.6g} {:.6g})", who,
        ev[0], ev[1], ev[2]));
  }
  if (ev[0] + ev[1] < ev[2] * (1 - 1e-9)) {
    throw ModelError(fmt::format(
        "{}: inertia violates the triangle inequality of a rigid body (principal moments {:.6g} "
        "{:.6g} {:.6g}: {:.6g} + {:.6g} < {:.6g})",
        who, ev[0], ev[1], ev[2], ev[0], ev[1], ev[2]));
  }
}

// the geoms, pairs and exclusions; a pair's unset parameters mixed from its geoms
void ModelBuilder::add_contacts(Model& m) const {
  for (const MeshSpec& mesh : meshes_) {
    m.mesh_name.push_back(mesh.name);
    m.mesh_vertadr.push_back(static_cast<int>(m.mesh_vert.size() / 3));
    m.mesh_vertnum.push_back(static_cast<int>(mesh.vert.size() / 3));
    append(m.mesh_vert, mesh.vert);
    m.mesh_faceadr.push_back(static_cast<int>(m.mesh_face.size() / 3));
    m.mesh_facenum.push_back(static_cast<int>(mesh.face.size() / 3));
    m.mesh_face.insert(m.mesh_face.end(), mesh.face.begin(), mesh.face.end());
    // the plane contacts' polygons, each with the normal of its first three corners (MuJoCo's),
    // and each vertex's polygons
    const std::vector<std::vector<int>> polygons = mesh::hull_polygons(mesh.vert, mesh.face);
    m.mesh_polyadr.push_back(m.nmeshpoly());
    m.mesh_polynum.push_back(static_cast<int>(polygons.size()));
    std::vector<std::vector<int>> of_vertex(mesh.vert.size() / 3);
    for (std::size_t p = 0; p < polygons.size(); ++p) {
      const std::vector<int>& poly = polygons[p];
      m.mesh_polyvertadr.push_back(m.nmeshpolyvert());
      m.mesh_polyvertnum.push_back(static_cast<int>(poly.size()));
      m.mesh_polyvert.insert(m.mesh_polyvert.end(), poly.begin(), poly.end());
      // the first corners that are not on one line (a polygon's corners may be)
      const Eigen::Vector3d a(&mesh.vert[3 * poly[0]]);
      Eigen::Vector3d n = Eigen::Vector3d::Zero();
      for (std::size_t k = 1; k + 1 < poly.size() && n.norm() < 1e-15; ++k) {
        const Eigen::Vector3d b(&mesh.vert[3 * poly[k]]), c(&mesh.vert[3 * poly[k + 1]]);
        n = (b - a).cross(c - a);
      }
      append(m.mesh_polynormal, n.normalized());
      for (const int v : poly) of_vertex[v].push_back(static_cast<int>(p));
    }
    for (const std::vector<int>& list : of_vertex) {
      m.mesh_polymapadr.push_back(m.nmeshpolymap());
      m.mesh_polymapnum.push_back(static_cast<int>(list.size()));
      m.mesh_polymap.insert(m.mesh_polymap.end(), list.begin(), list.end());
    }
  }
  m.nmesh = static_cast<int>(meshes_.size());
  for (const HFieldSpec& h : hfields_) {
    m.hfield_name.push_back(h.name);
    append(m.hfield_size, h.size);
    m.hfield_nrow.push_back(h.nrow);
    m.hfield_ncol.push_back(h.ncol);
    m.hfield_adr.push_back(m.nhfielddata());
    append(m.hfield_data, scaled_elevation(h.elevation));
  }
  m.nhfield = static_cast<int>(hfields_.size());
  // the geoms body by body (MuJoCo's order, which MJCF writes), each body's in the order they
  // were added
  std::vector<const GeomSpec*> geom_order;
  for (const GeomSpec& g : geoms_) geom_order.push_back(&g);
  std::stable_sort(geom_order.begin(), geom_order.end(), [&](const GeomSpec* a, const GeomSpec* b) {
    return m.id(ObjType::kBody, a->body) < m.id(ObjType::kBody, b->body);
  });
  for (const GeomSpec* spec : geom_order) {
    const GeomSpec& g = *spec;
    m.geom_name.push_back(g.name);
    m.geom_type.push_back(g.type);
    m.geom_bodyid.push_back(m.id(ObjType::kBody, g.body));
    append(m.geom_pos, g.pos);
    append(m.geom_quat, g.quat);
    append(m.geom_size, g.size);
    m.geom_rbound.push_back(
        g.type == GeomType::kHfield
            ? hfield_bounding_radius(hfields_[m.id(ObjType::kHfield, g.hfield)].size)
            : geom_bounding_radius(g.type, g.size));
    m.geom_contype.push_back(g.contype);
    m.geom_visible.push_back(g.visible ? 1 : 0);
    m.geom_conaffinity.push_back(g.conaffinity);
    m.geom_condim.push_back(g.condim);
    m.geom_priority.push_back(g.priority);
    append(m.geom_friction, g.friction);
    m.geom_margin.push_back(g.margin);
    m.geom_gap.push_back(g.gap);
    m.geom_solmix.push_back(g.solmix);
    append(m.geom_solref, g.solref);
    append(m.geom_solimp, g.solimp);
    m.geom_dataid.push_back(g.type == GeomType::kMesh     ? m.id(ObjType::kMesh, g.mesh)
                            : g.type == GeomType::kHfield ? m.id(ObjType::kHfield, g.hfield)
                                                          : -1);
    m.geom_fluidshape.push_back(g.fluid_ellipsoid ? 1 : 0);
    append(m.geom_fluid,
           g.fluid_ellipsoid ? ellipsoid_fluid_coefficients(g) : std::array<double, 12>{});
    if (g.fluid_ellipsoid) m.body_fluidshape[m.geom_bodyid.back()] = 1;
  }
  m.ngeom = static_cast<int>(geoms_.size());
  m.contact_margin = contact_margin_;  // before the pairs' unset values are mixed
  for (const ContactPairSpec& p : pairs_) {
    const int g1 = m.id(ObjType::kGeom, p.geom1), g2 = m.id(ObjType::kGeom, p.geom2);
    const ContactMix mix = mix_contact(m, g1, g2);
    m.pair_name.push_back(p.name);
    m.pair_geom1.push_back(g1);
    m.pair_geom2.push_back(g2);
    m.pair_dim.push_back(p.condim.value_or(mix.condim));
    append(m.pair_friction, p.friction.value_or(mix.friction));
    append(m.pair_solref, p.solref.value_or(mix.solref));
    append(m.pair_solimp, p.solimp.value_or(mix.solimp));
    m.pair_margin.push_back(p.margin.value_or(mix.margin));
    m.pair_gap.push_back(p.gap.value_or(mix.gap));
  }
  m.npair = static_cast<int>(pairs_.size());
  for (const auto& e : excludes_) {
    m.exclude_body1.push_back(m.id(ObjType::kBody, e[0]));
    m.exclude_body2.push_back(m.id(ObjType::kBody, e[1]));
  }
  m.nexclude = static_cast<int>(excludes_.size());
  m.cone = cone_;
  m.impratio = impratio_;
  m.nconmax = nconmax_;
}

std::string_view to_string(JointType type) {
  constexpr std::string_view kNames[] = {"free", "ball", "slide", "hinge", "fixed"};
  const int t = static_cast<int>(type);
  return t >= 0 && t < static_cast<int>(std::size(kNames)) ? kNames[t] : "unknown";
}

std::string_view to_string(GeomType type) {
  constexpr std::string_view kNames[] = {"plane",     "hfield",   "sphere", "capsule",
                                         "ellipsoid", "cylinder", "box",    "mesh"};
  const int t = static_cast<int>(type);
  return t >= 0 && t < static_cast<int>(std::size(kNames)) ? kNames[t] : "unknown";
}

std::string_view to_string(Integrator integrator) {
  switch (integrator) {
    case Integrator::kRK4:
      return "RK4";
    case Integrator::kImplicitFast:
      return "implicitfast";
    case Integrator::kImplicit:
      return "implicit";
    default:
      return "Euler";
  }
}

std::string_view to_string(ActuatorType type) {
  constexpr std::string_view kNames[] = {"motor",   "position", "velocity",
                                         "general", "cylinder", "muscle"};
  const int t = static_cast<int>(type);
  return t >= 0 && t < static_cast<int>(std::size(kNames)) ? kNames[t] : "unknown";
}

Inertia6 inertia_from_principal(const Vec3d& principal, const Quatd& frame) {
  const Eigen::Quaterniond q(frame[0], frame[1], frame[2], frame[3]);
  const Eigen::Matrix3d r = q.normalized().toRotationMatrix();
  const Eigen::Matrix3d i =
      r * Eigen::Vector3d(principal[0], principal[1], principal[2]).asDiagonal() * r.transpose();
  return {i(0, 0), i(1, 1), i(2, 2), i(1, 0), i(2, 0), i(2, 1)};
}

ModelBuilder& ModelBuilder::set_gravity(const Vec3d& g) {
  if (!finite({g[0], g[1], g[2]})) throw ModelError("gravity is not finite");
  gravity_ = g;
  return *this;
}

ModelBuilder& ModelBuilder::set_fluid(double density, double viscosity, const Vec3d& wind) {
  if (!(density >= 0) || !std::isfinite(density))
    throw ModelError(fmt::format("fluid density must be finite and >= 0 (got {})", density));
  if (!(viscosity >= 0) || !std::isfinite(viscosity))
    throw ModelError(fmt::format("fluid viscosity must be finite and >= 0 (got {})", viscosity));
  if (!finite({wind[0], wind[1], wind[2]})) throw ModelError("wind is not finite");
  density_ = density;
  viscosity_ = viscosity;
  wind_ = wind;
  return *this;
}

ModelBuilder& ModelBuilder::set_timestep(double dt) {
  if (!(dt > 0) || !std::isfinite(dt))
    throw ModelError(fmt::format("timestep must be positive (got {})", dt));
  timestep_ = dt;
  return *this;
}

ModelBuilder& ModelBuilder::set_inertia_rule(InertiaRule rule) {
  if (rule != InertiaRule::kRigidBody && rule != InertiaRule::kMassMatrix) {
    throw ModelError("set_inertia_rule: the rule is neither kRigidBody nor kMassMatrix");
  }
  inertia_rule_ = rule;
  return *this;
}

ModelBuilder& ModelBuilder::set_integrator(Integrator integrator) {
  integrator_ = integrator;
  return *this;
}

int ModelBuilder::add_body(const BodySpec& in) {
  BodySpec spec = in;
  const int id = static_cast<int>(bodies_.size());
  if (spec.name.empty()) spec.name = fmt::format("body{}", id);
  const std::string who = body_label(spec.name);
  if (body_index_.contains(spec.name)) {
    throw ModelError(who + ": a body of that name exists already");
  }
  for (const FusedBodySpec& f : fused_) {
    if (f.name == spec.name) throw ModelError(who + ": a merged body of that name exists already");
  }
  const auto found = body_index_.find(spec.parent);
  if (found == body_index_.end()) {
    throw ModelError(fmt::format("{}: unknown parent body '{}'", who, spec.parent));
  }
  const int parent = found->second;
  if (!finite({spec.pos[0], spec.pos[1], spec.pos[2], spec.com[0], spec.com[1], spec.com[2]})) {
    throw ModelError(who + ": position or centre of mass is not finite");
  }
  spec.quat = normalized_or_throw(spec.quat, who);
  if (!std::isfinite(spec.mass) || spec.mass < 0) {
    throw ModelError(fmt::format("{}: mass must be positive (got {})", who, spec.mass));
  }
  if (inertia_rule_ == InertiaRule::kRigidBody) {
    check_inertia(spec.inertia, spec.mass, who);
  } else if (!finite({spec.inertia[0], spec.inertia[1], spec.inertia[2], spec.inertia[3],
                      spec.inertia[4], spec.inertia[5]})) {
    throw ModelError(who + ": inertia is not finite");
  }
  if (spec.mocap && parent != 0) {
    throw ModelError(fmt::format(
        "{}: a mocap body must be a child of the world (its parent is '{}')", who, spec.parent));
  }
  if (!std::isfinite(spec.gravcomp)) throw ModelError(who + ": gravcomp is not finite");
  bodies_.push_back(spec);
  parents_.push_back(parent);
  body_index_.emplace(spec.name, id);
  body_joints_.emplace_back();
  body_ball_.push_back(-1);
  return id;
}

void ModelBuilder::add_joint(std::string_view body, const JointSpec& in) {
  JointSpec spec = in;
  if (spec.name.empty()) spec.name = fmt::format("joint{}", joints_.size());
  const std::string who = joint_label(spec.name);
  const auto found = body_index_.find(body);
  if (found == body_index_.end() || found->second == 0) {
    throw ModelError(fmt::format("{}: unknown body '{}'", who, body));
  }
  const int b = found->second;
  if (bodies_[b].mocap) {
    throw ModelError(fmt::format(
        "{}: body '{}' is a mocap body, whose pose each instance sets; it has no joints", who,
        body));
  }
  if (joint_names_.contains(spec.name)) {
    throw ModelError(who + ": a joint of that name exists already");
  }
  if (!finite({spec.pos[0], spec.pos[1], spec.pos[2], spec.axis[0], spec.axis[1], spec.axis[2],
               spec.damping, spec.armature, spec.stiffness, spec.springref, spec.ref})) {
    throw ModelError(who + ": a value is not finite");
  }
  if (spec.damping < 0 || spec.armature < 0 || spec.stiffness < 0) {
    throw ModelError(fmt::format("{}: damping, armature and stiffness must be non-negative", who));
  }
  if (spec.type == JointType::kHinge || spec.type == JointType::kSlide) {
    const double n = std::sqrt(spec.axis[0] * spec.axis[0] + spec.axis[1] * spec.axis[1] +
                               spec.axis[2] * spec.axis[2]);
    if (n < 1e-12) throw ModelError(who + ": axis has zero length");
    for (double& a : spec.axis) a /= n;
  }
  if (spec.limited && !(spec.range[0] <= spec.range[1])) {
    throw ModelError(fmt::format("{}: range [{}, {}] is empty", who, spec.range[0], spec.range[1]));
  }
  if (spec.actfrclimited) {
    if (spec.type != JointType::kHinge && spec.type != JointType::kSlide) {
      throw ModelError(who + ": actfrclimited applies to hinge and slide joints");
    }
    if (!finite({spec.actfrcrange[0], spec.actfrcrange[1]}) ||
        !(spec.actfrcrange[0] <= spec.actfrcrange[1])) {
      throw ModelError(fmt::format("{}: actfrcrange [{}, {}] is empty or not finite", who,
                                   spec.actfrcrange[0], spec.actfrcrange[1]));
    }
  }
  // the order rules of a body's joints (MuJoCo's): a free joint alone in a child of the world,
  // a fixed joint alone, and no rotation after a ball, whose dofs use the body's final axes.
  // With the rules kept, a free or fixed joint can only be a body's first, and a body has at
  // most one ball, so each check looks at one joint (a body may carry many joints).
  const std::vector<int>& earlier = body_joints_[b];
  if (!earlier.empty()) {
    const Joint& first = joints_[earlier.front()];
    if (first.spec.type == JointType::kFree || first.spec.type == JointType::kFixed) {
      throw ModelError(
          fmt::format("{}: body '{}' has the {} joint '{}', which must be its only joint", who,
                      bodies_[b].name, to_string(first.spec.type), first.spec.name));
    }
    if (spec.type == JointType::kFree || spec.type == JointType::kFixed) {
      throw ModelError(
          fmt::format("{}: a {} joint must be its body's only joint (body '{}' has '{}')", who,
                      to_string(spec.type), bodies_[b].name, first.spec.name));
    }
  }
  if (body_ball_[b] >= 0 && (spec.type == JointType::kHinge || spec.type == JointType::kBall)) {
    throw ModelError(fmt::format(
        "{}: a hinge or ball joint cannot follow the ball joint '{}' in the same body (ball dofs "
        "use the body's final axes)",
        who, joints_[body_ball_[b]].spec.name));
  }
  if (spec.type == JointType::kFree && parents_[b] != 0) {
    throw ModelError(who + ": a free joint must be in a child of the world");
  }
  if (spec.type == JointType::kBall) body_ball_[b] = static_cast<int>(joints_.size());
  body_joints_[b].push_back(static_cast<int>(joints_.size()));
  joint_names_.insert(spec.name);
  joints_.push_back({b, spec});
}

void ModelBuilder::add_actuator(const ActuatorSpec& in) {
  ActuatorSpec spec = in;
  const std::string who = claim_name(spec.name, actuators_, "actuator", "an");
  if (spec.joint.empty() == spec.tendon.empty())
    throw ModelError(who + ": give exactly one of joint and tendon");
  if (!spec.tendon.empty()) {
    const bool known = std::any_of(tendons_.begin(), tendons_.end(),
                                   [&](const TendonSpec& t) { return t.name == spec.tendon; });
    if (!known) throw ModelError(fmt::format("{}: unknown tendon '{}'", who, spec.tendon));
  } else {
    const auto it = std::find_if(joints_.begin(), joints_.end(),
                                 [&](const Joint& j) { return j.spec.name == spec.joint; });
    if (it == joints_.end())
      throw ModelError(fmt::format("{}: unknown joint '{}'", who, spec.joint));
    if (it->spec.type != JointType::kHinge && it->spec.type != JointType::kSlide) {
      throw ModelError(
          fmt::format("{}: joint '{}' is a {} joint; actuators drive hinge and slide joints", who,
                      spec.joint, to_string(it->spec.type)));
    }
  }
  if (!finite({spec.gear, spec.kp, spec.kd, spec.kv, spec.gain, spec.bias[0], spec.bias[1],
               spec.bias[2], spec.gain_slope[0], spec.gain_slope[1], spec.dynprm[0], spec.dynprm[1],
               spec.dynprm[2], spec.actrange[0], spec.actrange[1], spec.lengthrange[0],
               spec.lengthrange[1]}) ||
      !finite(spec.muscle_gain) || !finite(spec.muscle_bias)) {
    throw ModelError(who + ": a value is not finite");
  }
  // whether the joint or tendon the actuator drives is limited, and its range
  const auto target_range = [&] {
    std::pair<bool, std::array<double, 2>> out{false, {0, 0}};
    if (!spec.tendon.empty()) {
      for (const TendonSpec& t : tendons_) {
        if (t.name == spec.tendon) out = {t.limited, t.range};
      }
    } else {
      for (const Joint& j : joints_) {
        if (j.spec.name == spec.joint) out = {j.spec.limited, j.spec.range};
      }
    }
    return out;
  };
  if (!(spec.inheritrange >= 0) || !std::isfinite(spec.inheritrange)) {
    throw ModelError(
        fmt::format("{}: inheritrange {} must be finite and >= 0", who, spec.inheritrange));
  }
  if (spec.inheritrange > 0) {
    const auto [limited, range] = target_range();
    // MuJoCo takes the range whether or not it limits the target
    if (!limited && !(range[0] < range[1])) {
      throw ModelError(fmt::format("{}: inheritrange needs a range of its {} ('{}' has none)", who,
                                   spec.tendon.empty() ? "joint" : "tendon",
                                   spec.tendon.empty() ? spec.joint : spec.tendon));
    }
    const double middle = 0.5 * (range[0] + range[1]);
    const double half = 0.5 * (range[1] - range[0]) * spec.inheritrange;
    spec.ctrlrange = {middle - half, middle + half};
  }
  if (spec.ctrllimited && !(spec.ctrlrange[0] <= spec.ctrlrange[1])) {
    throw ModelError(
        fmt::format("{}: ctrlrange [{}, {}] is empty", who, spec.ctrlrange[0], spec.ctrlrange[1]));
  }
  if (spec.forcelimited && !(spec.forcerange[0] <= spec.forcerange[1])) {
    throw ModelError(fmt::format("{}: forcerange [{}, {}] is empty", who, spec.forcerange[0],
                                 spec.forcerange[1]));
  }
  if (spec.actlimited && !(spec.actrange[0] <= spec.actrange[1])) {
    throw ModelError(
        fmt::format("{}: actrange [{}, {}] is empty", who, spec.actrange[0], spec.actrange[1]));
  }
  if (spec.type == ActuatorType::kCylinder) spec.dyntype = ActuatorDyn::kFilter;
  if (spec.type == ActuatorType::kMuscle) {
    spec.dyntype = ActuatorDyn::kMuscle;
    spec.gaintype = ActuatorGain::kMuscle;
    spec.biastype = ActuatorBias::kMuscle;
  }
  if (spec.actlimited && spec.dyntype == ActuatorDyn::kNone) {
    throw ModelError(who + ": actrange is given but the actuator has no dynamics (dyntype none)");
  }
  // muscle gain and bias: range0 < range1, lmin < 1 < lmax, scale, vmax, fpmax, fvmax > 0
  const auto check_muscle = [&](const std::array<double, 9>& p, const char* which) {
    if (!(p[0] < p[1])) {
      throw ModelError(
          fmt::format("{}: the muscle {}'s range [{}, {}] is empty", who, which, p[0], p[1]));
    }
    if (!(p[4] < 1 && p[5] > 1)) {
      throw ModelError(fmt::format("{}: the muscle {} needs lmin < 1 < lmax (got {}, {})", who,
                                   which, p[4], p[5]));
    }
    if (!(p[3] > 0 && p[6] > 0 && p[7] > 0 && p[8] > 0)) {
      throw ModelError(fmt::format(
          "{}: the muscle {} needs positive scale, vmax, fpmax, fvmax (got {}, {}, {}, {})", who,
          which, p[3], p[6], p[7], p[8]));
    }
  };
  if (spec.gaintype == ActuatorGain::kMuscle) check_muscle(spec.muscle_gain, "gain");
  if (spec.biastype == ActuatorBias::kMuscle) check_muscle(spec.muscle_bias, "bias");
  if ((spec.dyntype == ActuatorDyn::kFilter || spec.dyntype == ActuatorDyn::kFilterExact) &&
      spec.dynprm[0] < 0)
    throw ModelError(who + ": the filter's time constant must be non-negative");
  // a muscle's length range: given, or the range of its joint or tendon (MuJoCo's uselimit)
  if (spec.gaintype == ActuatorGain::kMuscle || spec.biastype == ActuatorBias::kMuscle) {
    // (0, 0) is MuJoCo's "not given"; any other range must be one
    const bool given = spec.lengthrange[0] != 0 || spec.lengthrange[1] != 0;
    if (given && !(spec.lengthrange[0] < spec.lengthrange[1])) {
      throw ModelError(
          fmt::format("{}: the muscle's lengthrange [{:g}, {:g}] is empty or reversed "
                      "(it needs lo < hi)",
                      who, spec.lengthrange[0], spec.lengthrange[1]));
    }
    if (!given) {
      const auto [limited, range] = target_range();
      if (!spec.lengthrange_from_limit || !limited) {
        throw ModelError(fmt::format(
            "{}: a muscle needs its length range: give lengthrange=\"lo hi\", or limit {} "
            "'{}' and set <compiler><lengthrange uselimit=\"true\"/></compiler> (zwang does not "
            "find it by simulation as MuJoCo's compiler does)",
            who, spec.tendon.empty() ? "joint" : "tendon",
            spec.tendon.empty() ? spec.joint : spec.tendon));
      }
      spec.lengthrange = range;
    }
  }
  if (spec.type == ActuatorType::kPosition && spec.kp < 0)
    throw ModelError(who + ": kp must be non-negative");
  if (spec.type == ActuatorType::kPosition && spec.kd < 0)
    throw ModelError(who + ": the position servo's damping kd (MJCF: kv) must be non-negative");
  if (spec.type == ActuatorType::kPosition &&
      (spec.dampratio < 0 || !std::isfinite(spec.dampratio)))
    throw ModelError(who + ": dampratio must be non-negative and finite");
  if (spec.type == ActuatorType::kPosition && spec.dampratio > 0 && spec.kd > 0)
    throw ModelError(who + ": a position servo takes kd (MJCF: kv) or dampratio, not both");
  if (spec.type == ActuatorType::kVelocity && spec.kv < 0)
    throw ModelError(who + ": kv must be non-negative");
  actuators_.push_back(spec);
}

namespace {
void check_solref(const SolRef& solref, const std::string& who);
void check_solimp(const SolImp& solimp, const std::string& who);
}  // namespace

void ModelBuilder::add_tendon(const TendonSpec& in) {
  TendonSpec spec = in;
  const std::string who = claim_name(spec.name, tendons_, "tendon", "a");
  if (!spec.spatial && spec.joints.empty())
    throw ModelError(who + ": a fixed tendon needs at least one joint");
  if (!spec.spatial && !spec.path.empty())
    throw ModelError(who + ": a fixed tendon has joints, not sites or pulleys");
  if (spec.spatial && !spec.joints.empty())
    throw ModelError(who + ": a spatial tendon has sites and pulleys, not joints");
  for (const TendonSpec::Term& term : spec.joints) {
    const auto it = std::find_if(joints_.begin(), joints_.end(),
                                 [&](const Joint& j) { return j.spec.name == term.joint; });
    if (it == joints_.end())
      throw ModelError(fmt::format("{}: unknown joint '{}'", who, term.joint));
    if (it->spec.type != JointType::kHinge && it->spec.type != JointType::kSlide) {
      throw ModelError(
          fmt::format("{}: joint '{}' is a {} joint; fixed tendons combine hinge and "
                      "slide joints",
                      who, term.joint, to_string(it->spec.type)));
    }
    if (!std::isfinite(term.coef)) throw ModelError(who + ": a coefficient is not finite");
  }
  if (spec.spatial) {
    // MuJoCo's rules: a site at the end and a site or pulley at the start; a site on both sides
    // of every wrap geom and after every pulley; no site alone between pulleys
    const std::size_t n = spec.path.size();
    const auto is_site = [&](std::size_t i) { return i < n && !spec.path[i].site.empty(); };
    const auto is_pulley = [&](std::size_t i) {
      return spec.path[i].site.empty() && spec.path[i].geom.empty();
    };
    if (n < 2 || !is_site(n - 1) || !(is_site(0) || is_pulley(0)))
      throw ModelError(who + ": a spatial tendon ends at a site and starts at a site or a pulley");
    const auto known_site = [&](const std::string& name) {
      return std::any_of(sites_.begin(), sites_.end(),
                         [&](const SiteSpec& s) { return s.name == name; });
    };
    for (std::size_t i = 0; i < n; ++i) {
      const TendonSpec::Point& p = spec.path[i];
      if (!p.geom.empty()) {
        if (!p.site.empty())
          throw ModelError(fmt::format("{}: a path point is a site or a geom, not both", who));
        const auto g = std::find_if(geoms_.begin(), geoms_.end(),
                                    [&](const GeomSpec& s) { return s.name == p.geom; });
        if (g == geoms_.end()) throw ModelError(fmt::format("{}: unknown geom '{}'", who, p.geom));
        if (g->type != GeomType::kSphere && g->type != GeomType::kCylinder)
          throw ModelError(
              fmt::format("{}: geom '{}' is a {}; tendons wrap around spheres and cylinders", who,
                          p.geom, to_string(g->type)));
        if (!p.sidesite.empty() && !known_site(p.sidesite))
          throw ModelError(fmt::format("{}: unknown side site '{}'", who, p.sidesite));
        if (i == 0 || !is_site(i - 1) || !is_site(i + 1))
          throw ModelError(
              fmt::format("{}: geom '{}' needs a site before and after it", who, p.geom));
        continue;
      }
      if (!p.sidesite.empty())
        throw ModelError(fmt::format("{}: a side site belongs to a wrap geom", who));
      if (p.site.empty()) {
        if (!(p.divisor > 0) || !std::isfinite(p.divisor))
          throw ModelError(
              fmt::format("{}: a pulley divisor must be positive (got {})", who, p.divisor));
        if ((i > 0 && !is_site(i - 1)) || !is_site(i + 1))
          throw ModelError(who +
                           ": a pulley needs a site after it, and one before it unless it "
                           "starts the path");
        continue;
      }
      if (!known_site(p.site)) throw ModelError(fmt::format("{}: unknown site '{}'", who, p.site));
      if ((i == 0 || is_pulley(i - 1)) && (i + 1 == n || is_pulley(i + 1)))
        throw ModelError(fmt::format("{}: site '{}' is alone between pulleys", who, p.site));
      if (i + 1 < n && spec.path[i + 1].site == p.site)
        throw ModelError(fmt::format("{}: site '{}' follows itself", who, p.site));
    }
  }
  if (!finite({spec.stiffness, spec.damping, spec.springlength[0], spec.springlength[1],
               spec.frictionloss, spec.range[0], spec.range[1], spec.margin, spec.actfrcrange[0],
               spec.actfrcrange[1]}))
    throw ModelError(who + ": a value is not finite");
  if (spec.springlength[0] > spec.springlength[1])
    throw ModelError(fmt::format("{}: springlength [{}, {}] is empty", who, spec.springlength[0],
                                 spec.springlength[1]));
  if (spec.stiffness < 0 || spec.damping < 0 || spec.frictionloss < 0)
    throw ModelError(who + ": stiffness, damping and frictionloss must be non-negative");
  if (spec.limited && !(spec.range[0] < spec.range[1]))
    throw ModelError(fmt::format("{}: range [{}, {}] is empty", who, spec.range[0], spec.range[1]));
  const auto& afr = spec.actfrcrange;
  if (spec.actfrclimited && !(afr[0] < afr[1] && afr[0] <= 0 && afr[1] >= 0))
    throw ModelError(fmt::format(
        "{}: actuatorfrcrange [{}, {}] must be an interval that holds 0 (a total force the "
        "tendon's actuators can be scaled to)",
        who, afr[0], afr[1]));
  check_solref(spec.solreflimit, who);
  check_solref(spec.solreffriction, who);
  check_solimp(spec.solimplimit, who);
  check_solimp(spec.solimpfriction, who);
  tendons_.push_back(spec);
}

namespace {

// finite values; a solref mixing the standard and direct forms, or a solimp outside (0, 1), is
// MuJoCo's to repair where it runs (the default solref, clamped impedances), and so zwang's
void check_solref(const SolRef& solref, const std::string& who) {
  if (!finite({solref[0], solref[1]})) throw ModelError(who + ": solref is not finite");
}

void check_solimp(const SolImp& solimp, const std::string& who) {
  for (double v : solimp) {
    if (!std::isfinite(v)) throw ModelError(who + ": solimp is not finite");
  }
}

}  // namespace

ModelBuilder& ModelBuilder::set_solver(int iterations, double tolerance) {
  if (iterations < 0) {
    throw ModelError(fmt::format("option: iterations must be non-negative (got {})", iterations));
  }
  if (!(tolerance >= 0) || !std::isfinite(tolerance)) {
    throw ModelError(fmt::format("option: tolerance must be non-negative (got {})", tolerance));
  }
  iterations_ = iterations;
  tolerance_ = tolerance;
  return *this;
}

void ModelBuilder::add_equality(const EqualitySpec& in) {
  EqualitySpec spec = in;
  const std::string who = fmt::format(
      "equality '{}'", spec.name.empty() ? fmt::format("#{}", equalities_.size()) : spec.name);
  for (const EqualitySpec& e : equalities_) {
    if (!spec.name.empty() && e.name == spec.name) {
      throw ModelError(who + ": an equality of that name exists already");
    }
  }
  check_solref(spec.solref, who);
  check_solimp(spec.solimp, who);
  if (spec.type == EqualityType::kTendon) {
    for (const std::string* name : {&spec.obj1, &spec.obj2}) {
      if (name == &spec.obj2 && name->empty()) continue;
      if (tendon_index(*name) < 0)
        throw ModelError(fmt::format("{}: unknown tendon '{}'", who, *name));
    }
    if (spec.obj1 == spec.obj2) throw ModelError(who + ": tendon1 and tendon2 are the same tendon");
    for (double c : spec.polycoef) {
      if (!std::isfinite(c)) throw ModelError(who + ": polycoef is not finite");
    }
    if (spec.hard) throw ModelError(who + ": a tendon equality cannot be hard");
  } else if (spec.type == EqualityType::kJoint) {
    for (const std::string* name : {&spec.obj1, &spec.obj2}) {
      if (name == &spec.obj2 && name->empty()) continue;
      const auto it = std::find_if(joints_.begin(), joints_.end(),
                                   [&](const Joint& j) { return j.spec.name == *name; });
      if (it == joints_.end()) throw ModelError(fmt::format("{}: unknown joint '{}'", who, *name));
      if (it->spec.type != JointType::kHinge && it->spec.type != JointType::kSlide) {
        throw ModelError(
            fmt::format("{}: joint '{}' is a {} joint; joint equalities couple "
                        "hinge and slide joints",
                        who, *name, to_string(it->spec.type)));
      }
    }
    if (spec.obj1 == spec.obj2) throw ModelError(who + ": joint1 and joint2 are the same joint");
    for (double c : spec.polycoef) {
      if (!std::isfinite(c)) throw ModelError(who + ": polycoef is not finite");
    }
  } else {
    if (spec.obj2.empty()) spec.obj2 = "world";
    for (const std::string* name : {&spec.obj1, &spec.obj2}) {
      if (!body_index_.contains(*name)) {
        throw ModelError(fmt::format("{}: unknown body '{}'", who, *name));
      }
    }
    if (spec.obj1 == spec.obj2) throw ModelError(who + ": body1 and body2 are the same body");
    if (!finite({spec.anchor[0], spec.anchor[1], spec.anchor[2], spec.torquescale})) {
      throw ModelError(who + ": anchor or torquescale is not finite");
    }
    for (double v : spec.relpose) {
      if (!std::isfinite(v)) throw ModelError(who + ": relpose is not finite");
    }
    if (spec.hard && spec.type == EqualityType::kWeld) {
      throw ModelError(who +
                       ": a weld cannot be hard (connect and joint equalities can); use "
                       "a soft weld with a stiff solref");
    }
  }
  equalities_.push_back(spec);
}

void ModelBuilder::add_drive(const DriveSpec& spec) {
  const std::string who = fmt::format("drive of joint '{}'", spec.joint);
  const auto it = std::find_if(joints_.begin(), joints_.end(),
                               [&](const Joint& j) { return j.spec.name == spec.joint; });
  if (it == joints_.end()) throw ModelError(who + ": unknown joint");
  if (it->spec.type != JointType::kHinge && it->spec.type != JointType::kSlide) {
    throw ModelError(
        fmt::format("{}: a {} joint cannot be driven; drives act on hinge and slide "
                    "joints",
                    who, to_string(it->spec.type)));
  }
  for (const DriveSpec& d : drives_) {
    if (d.joint == spec.joint) throw ModelError(who + ": the joint is driven already");
  }
  if (!finite({spec.q0, spec.v0, spec.amplitude, spec.omega, spec.phase})) {
    throw ModelError(who + ": a drive number is not finite");
  }
  check_solref(spec.solref, who);
  drives_.push_back(spec);
}

void ModelBuilder::add_nonholonomic(const NonholonomicSpec& spec) {
  const std::string who = fmt::format("non-holonomic constraint '{}'", spec.name);
  if (!body_index_.contains(spec.body) || spec.body == "world") {
    throw ModelError(fmt::format("{}: unknown or fixed body '{}'", who, spec.body));
  }
  check_solref(spec.solref, who);
  if (spec.type == NonholonomicType::kKnifeEdge) {
    const Vec3d& e = spec.direction;
    const double n = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
    if (!finite({spec.point[0], spec.point[1], spec.point[2], n}) || n < 1e-12) {
      throw ModelError(who + ": point and a non-zero direction must be finite");
    }
  } else if (!(spec.radius > 0) || !std::isfinite(spec.radius) || !std::isfinite(spec.height)) {
    throw ModelError(fmt::format("{}: radius must be positive (got {})", who, spec.radius));
  }
  nonholonomic_.push_back(spec);
}

void ModelBuilder::add_site(const SiteSpec& in) {
  SiteSpec s = in;
  const int id = static_cast<int>(sites_.size());
  const std::string who = fmt::format("site '{}'", s.name.empty() ? fmt::format("{}", id) : s.name);
  if (!body_index_.contains(s.body)) {
    throw ModelError(fmt::format("{}: body '{}' has not been added", who, s.body));
  }
  if (!s.name.empty()) {
    for (const SiteSpec& other : sites_) {
      if (other.name == s.name) throw ModelError(who + ": the name is used by another site");
    }
  }
  if (!finite({s.pos[0], s.pos[1], s.pos[2]})) throw ModelError(who + ": pos is not finite");
  s.quat = normalized_or_throw(s.quat, who);
  if (s.type != GeomType::kSphere && s.type != GeomType::kCapsule &&
      s.type != GeomType::kEllipsoid && s.type != GeomType::kCylinder && s.type != GeomType::kBox) {
    throw ModelError(who + ": a site is a sphere, capsule, ellipsoid, cylinder or box");
  }
  if (!finite({s.size[0], s.size[1], s.size[2]}) || !(s.size[0] > 0)) {
    throw ModelError(fmt::format("{}: size ({} {} {}) must be finite, its first number positive",
                                 who, s.size[0], s.size[1], s.size[2]));
  }
  sites_.push_back(std::move(s));
}

void ModelBuilder::add_fused_body(const FusedBodySpec& in) {
  FusedBodySpec f = in;
  const std::string who =
      f.name.empty() ? fmt::format("merged body {}", fused_.size()) : body_label(f.name);
  if (!body_index_.contains(f.body)) {
    throw ModelError(fmt::format("{}: body '{}' has not been added", who, f.body));
  }
  if (!f.name.empty()) {
    if (body_index_.contains(f.name))
      throw ModelError(who + ": a body of that name exists already");
    for (const FusedBodySpec& other : fused_) {
      if (other.name == f.name)
        throw ModelError(who + ": a merged body of that name exists already");
    }
  }
  if (!finite({f.pos[0], f.pos[1], f.pos[2], f.ipos[0], f.ipos[1], f.ipos[2]})) {
    throw ModelError(who + ": position or centre of mass is not finite");
  }
  f.quat = normalized_or_throw(f.quat, who);
  if (!std::isfinite(f.mass) || f.mass < 0) {
    throw ModelError(fmt::format("{}: mass must not be negative (got {})", who, f.mass));
  }
  fused_.push_back(std::move(f));
}

void ModelBuilder::add_fused(Model& m) const {
  for (const FusedBodySpec& f : fused_) {
    m.fused_name.push_back(f.name);
    m.fused_bodyid.push_back(m.id(ObjType::kBody, f.body));
    append(m.fused_pos, f.pos);
    append(m.fused_quat, f.quat);
    m.fused_mass.push_back(f.mass);
    append(m.fused_ipos, f.ipos);
  }
  m.nfused = static_cast<int>(fused_.size());
}

// the sites body by body (MuJoCo's order), each body's in the order they were added
void ModelBuilder::add_sites(Model& m) const {
  std::vector<const SiteSpec*> order;
  for (const SiteSpec& s : sites_) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [&](const SiteSpec* a, const SiteSpec* b) {
    return m.id(ObjType::kBody, a->body) < m.id(ObjType::kBody, b->body);
  });
  for (const SiteSpec* s : order) {
    m.site_name.push_back(s->name);
    m.site_bodyid.push_back(m.id(ObjType::kBody, s->body));
    append(m.site_pos, s->pos);
    append(m.site_quat, s->quat);
    m.site_type.push_back(static_cast<int>(s->type));
    append(m.site_size, s->size);
  }
  m.nsite = static_cast<int>(sites_.size());
}

int ModelBuilder::tendon_index(const std::string& name) const {
  for (std::size_t i = 0; i < tendons_.size(); ++i)
    if (tendons_[i].name == name) return static_cast<int>(i);
  return -1;
}

// after add_sites: a spatial tendon's sites by their model ids.  The spring length (when not
// given), length0 and invweight0 come from the kinematics, in set_constraint_constants.
void ModelBuilder::add_tendons(Model& m) const {
  for (const TendonSpec& t : tendons_) {
    m.tendon_name.push_back(t.name);
    m.tendon_adr.push_back(static_cast<int>(m.wrap_type.size()));
    for (const TendonSpec::Term& term : t.joints) {
      m.wrap_type.push_back(static_cast<int>(WrapType::kJoint));
      m.wrap_objid.push_back(m.id(ObjType::kJoint, term.joint));
      m.wrap_prm.push_back(term.coef);
      m.wrap_sideid.push_back(-1);
    }
    for (const TendonSpec::Point& p : t.path) {
      if (!p.geom.empty()) {
        const int g = m.id(ObjType::kGeom, p.geom);
        const int side = p.sidesite.empty() ? -1 : m.id(ObjType::kSite, p.sidesite);
        m.wrap_type.push_back(static_cast<int>(
            m.geom_type[g] == GeomType::kCylinder ? WrapType::kCylinder : WrapType::kSphere));
        m.wrap_objid.push_back(g);
        m.wrap_prm.push_back(side);
        m.wrap_sideid.push_back(side);
        continue;
      }
      const bool pulley = p.site.empty();
      m.wrap_type.push_back(static_cast<int>(pulley ? WrapType::kPulley : WrapType::kSite));
      m.wrap_objid.push_back(pulley ? -1 : m.id(ObjType::kSite, p.site));
      m.wrap_prm.push_back(pulley ? p.divisor : 0.0);
      m.wrap_sideid.push_back(-1);
    }
    m.tendon_num.push_back(static_cast<int>(m.wrap_type.size()) - m.tendon_adr.back());
    m.tendon_stiffness.push_back(t.stiffness);
    m.tendon_damping.push_back(t.damping);
    append(m.tendon_lengthspring, t.springlength);
    m.tendon_frictionloss.push_back(t.frictionloss);
    m.tendon_limited.push_back(t.limited ? 1 : 0);
    append(m.tendon_range, t.range);
    m.tendon_margin.push_back(t.margin);
    append(m.tendon_solref_lim, t.solreflimit);
    append(m.tendon_solimp_lim, t.solimplimit);
    append(m.tendon_solref_fri, t.solreffriction);
    append(m.tendon_solimp_fri, t.solimpfriction);
    m.tendon_actfrclimited.push_back(t.actfrclimited ? 1 : 0);
    append(m.tendon_actfrcrange, t.actfrcrange);
  }
  m.ntendon = static_cast<int>(tendons_.size());
  m.tendon_length0.assign(m.ntendon, 0.0);
  m.tendon_invweight0.assign(m.ntendon, 0.0);
}

void ModelBuilder::add_geom(const GeomSpec& in) {
  GeomSpec g = in;
  const int id = static_cast<int>(geoms_.size());
  const std::string who = fmt::format("geom '{}'", g.name.empty() ? fmt::format("{}", id) : g.name);
  if (!body_index_.contains(g.body)) {
    throw ModelError(fmt::format("{}: body '{}' has not been added", who, g.body));
  }
  if (!g.name.empty()) {
    for (const GeomSpec& other : geoms_) {
      if (other.name == g.name) throw ModelError(who + ": the name is used by another geom");
    }
  }
  const int type = static_cast<int>(g.type);
  if (type < 0 || type > static_cast<int>(GeomType::kMesh)) {
    throw ModelError(fmt::format("{}: unknown type {}", who, type));
  }
  if (g.type == GeomType::kHfield) {
    const auto it = std::find_if(hfields_.begin(), hfields_.end(),
                                 [&](const HFieldSpec& h) { return h.name == g.hfield; });
    if (it == hfields_.end()) {
      throw ModelError(fmt::format("{}: height field '{}' has not been added", who, g.hfield));
    }
    // MuJoCo's geom_size of a height field
    g.size = {it->size[0], it->size[1], 0.25 * it->size[2] + 0.5 * it->size[3]};
  } else if (!g.hfield.empty()) {
    throw ModelError(
        fmt::format("{}: only a height-field geom has a height field ('{}')", who, g.hfield));
  }
  if (g.type == GeomType::kMesh) {
    const bool known = std::any_of(meshes_.begin(), meshes_.end(),
                                   [&](const MeshSpec& m) { return m.name == g.mesh; });
    if (!known) throw ModelError(fmt::format("{}: mesh '{}' has not been added", who, g.mesh));
    for (int k = 0; k < 3; ++k) {
      if (!std::isfinite(g.size[k]) || g.size[k] < 0) {
        throw ModelError(
            fmt::format("{}: size[{}] = {} must be non-negative and finite", who, k, g.size[k]));
      }
    }
  } else if (!g.mesh.empty()) {
    throw ModelError(fmt::format("{}: only a mesh geom has a mesh ('{}')", who, g.mesh));
  }
  for (double c : g.fluidcoef) {
    if (!std::isfinite(c)) throw ModelError(fmt::format("{}: fluidcoef is not finite", who));
  }
  const int needed = g.type == GeomType::kSphere                                     ? 1
                     : g.type == GeomType::kCapsule || g.type == GeomType::kCylinder ? 2
                     : g.type == GeomType::kPlane || g.type == GeomType::kMesh       ? 0
                                                                                     : 3;
  for (int k = 0; k < 3; ++k) {
    if (!std::isfinite(g.size[k]) || (k < needed && !(g.size[k] > 0))) {
      throw ModelError(
          fmt::format("{}: size[{}] = {} must be positive and finite", who, k, g.size[k]));
    }
  }
  if (!finite({g.pos[0], g.pos[1], g.pos[2]})) throw ModelError(who + ": pos is not finite");
  g.quat = normalized_or_throw(g.quat, who);
  if (g.condim != 1 && g.condim != 3 && g.condim != 4 && g.condim != 6) {
    throw ModelError(fmt::format("{}: condim {} is not 1, 3, 4 or 6", who, g.condim));
  }
  for (double f : g.friction) {
    if (!(f >= 0) || !std::isfinite(f)) {
      throw ModelError(fmt::format("{}: friction {} must be non-negative and finite", who, f));
    }
  }
  if (!(g.margin >= 0) || !(g.gap >= 0) || !(g.solmix >= 0) ||
      !finite({g.margin, g.gap, g.solmix, g.solref[0], g.solref[1], g.solimp[0], g.solimp[1],
               g.solimp[2], g.solimp[3], g.solimp[4]})) {
    throw ModelError(who +
                     ": margin, gap and solmix must be non-negative, solref and solimp finite");
  }
  if (g.type == GeomType::kPlane && g.body != "world") {
    // a plane moves with no body: MuJoCo allows it only on the world and bodies welded to it
    int b = body_index_.find(g.body)->second;
    for (; b > 0; b = parents_[b]) {
      if (!body_joints_[b].empty()) {
        throw ModelError(who + ": a plane can only be on the world or a body welded to it");
      }
    }
  }
  geoms_.push_back(std::move(g));
}

int ModelBuilder::add_mesh(const MeshSpec& in) {
  const std::string who = fmt::format("mesh '{}'", in.name);
  if (in.name.empty()) throw ModelError("a mesh needs a name");
  for (const MeshSpec& other : meshes_) {
    if (other.name == in.name) throw ModelError(who + ": the name is used by another mesh");
  }
  if (in.vert.size() % 3 != 0 || in.face.size() % 3 != 0) {
    throw ModelError(who + ": vertices and triangles come in threes");
  }
  // a hull is its vertices and its triangles; a mesh without a hull has neither
  if (!in.vert.empty() && in.face.empty()) {
    throw ModelError(who + ": vertices without triangles (a hull needs both)");
  }
  if (!std::all_of(in.vert.begin(), in.vert.end(), [](double v) { return std::isfinite(v); })) {
    throw ModelError(who + ": a vertex is not finite");
  }
  const int n = static_cast<int>(in.vert.size() / 3);
  for (int v : in.face) {
    if (v < 0 || v >= n) {
      throw ModelError(fmt::format("{}: a triangle uses vertex {} of {}", who, v, n));
    }
  }
  meshes_.push_back(in);
  return static_cast<int>(meshes_.size()) - 1;
}

int ModelBuilder::add_hfield(const HFieldSpec& in) {
  const std::string who = fmt::format("height field '{}'", in.name);
  if (in.name.empty()) throw ModelError("a height field needs a name");
  for (const HFieldSpec& other : hfields_) {
    if (other.name == in.name) throw ModelError(who + ": the name is used by another height field");
  }
  if (in.nrow < 2 || in.ncol < 2) {
    throw ModelError(fmt::format("{}: {} rows and {} columns; a grid needs at least 2 of each", who,
                                 in.nrow, in.ncol));
  }
  if (static_cast<long long>(in.nrow) * in.ncol != std::ssize(in.elevation)) {
    throw ModelError(fmt::format("{}: {} elevations for {} rows of {} columns", who,
                                 in.elevation.size(), in.nrow, in.ncol));
  }
  for (std::size_t i = 0; i < in.elevation.size(); ++i) {
    // MuJoCo reads them as float
    if (!std::isfinite(static_cast<float>(in.elevation[i]))) {
      throw ModelError(fmt::format("{}: elevation {} ({}) is not finite", who, i, in.elevation[i]));
    }
  }
  const auto [lo, hi] = std::minmax_element(in.elevation.begin(), in.elevation.end());
  if (!std::isfinite(static_cast<float>(*hi) - static_cast<float>(*lo))) {
    throw ModelError(
        fmt::format("{}: the elevations span {} to {}, more than a float holds", who, *lo, *hi));
  }
  for (int k = 0; k < 4; ++k) {
    if (!(in.size[k] > 0) || !std::isfinite(static_cast<float>(in.size[k]))) {
      throw ModelError(
          fmt::format("{}: size[{}] = {} must be positive and finite", who, k, in.size[k]));
    }
  }
  hfields_.push_back(in);
  return static_cast<int>(hfields_.size()) - 1;
}

void ModelBuilder::add_contact_pair(const ContactPairSpec& in) {
  const std::string who = fmt::format("contact pair '{}'", in.name);
  for (const std::string& name : {in.geom1, in.geom2}) {
    const bool known = std::any_of(geoms_.begin(), geoms_.end(),
                                   [&](const GeomSpec& g) { return g.name == name; });
    if (!known) throw ModelError(fmt::format("{}: geom '{}' has not been added", who, name));
  }
  if (in.geom1 == in.geom2) throw ModelError(who + ": a geom cannot collide with itself");
  if (in.condim && *in.condim != 1 && *in.condim != 3 && *in.condim != 4 && *in.condim != 6) {
    throw ModelError(fmt::format("{}: condim {} is not 1, 3, 4 or 6", who, *in.condim));
  }
  if (in.friction) {
    for (double f : *in.friction) {
      if (!(f >= 0) || !std::isfinite(f)) {
        throw ModelError(fmt::format("{}: friction {} must be non-negative and finite", who, f));
      }
    }
  }
  if ((in.margin && !(*in.margin >= 0)) || (in.gap && !(*in.gap >= 0))) {
    throw ModelError(who + ": margin and gap must be non-negative");
  }
  pairs_.push_back(in);
}

void ModelBuilder::add_contact_exclude(std::string_view body1, std::string_view body2) {
  for (std::string_view b : {body1, body2}) {
    if (!body_index_.contains(b)) {
      throw ModelError(fmt::format("contact exclude: body '{}' has not been added", b));
    }
  }
  excludes_.push_back({std::string(body1), std::string(body2)});
}

ModelBuilder& ModelBuilder::set_cone(Cone cone, double impratio) {
  if (cone != Cone::kPyramidal && cone != Cone::kElliptic) {
    throw ModelError("set_cone: the cone is neither pyramidal nor elliptic");
  }
  if (!(impratio > 0) || !std::isfinite(impratio)) {
    throw ModelError(fmt::format("set_cone: impratio must be positive (got {})", impratio));
  }
  cone_ = cone;
  impratio_ = impratio;
  return *this;
}

ModelBuilder& ModelBuilder::set_max_contacts(int nconmax) {
  if (nconmax < 0) {
    throw ModelError(fmt::format("set_max_contacts: {} is negative", nconmax));
  }
  nconmax_ = nconmax;
  return *this;
}

ModelBuilder& ModelBuilder::set_contact_margin(ContactMargin rule) {
  if (rule != ContactMargin::kMax && rule != ContactMargin::kSum) {
    throw ModelError("set_contact_margin: the rule is neither the larger margin nor the sum");
  }
  contact_margin_ = rule;
  return *this;
}

ModelBuilder& ModelBuilder::set_wrap_rules(WrapRules rules) {
  if (rules != WrapRules::kMujoco4 && rules != WrapRules::kMujoco2)
    throw ModelError("set_wrap_rules: the rules are neither MuJoCo 4.0's nor 2.2.2's");
  wrap_rules_ = rules;
  return *this;
}

ModelBuilder& ModelBuilder::set_rules(Rules rules) {
  if (rules != Rules::kMujoco4 && rules != Rules::kMujoco2)
    throw ModelError("set_rules: the rules are neither MuJoCo 4.0's nor 2.2.2's");
  rules_ = rules;
  return *this;
}

ModelBuilder& ModelBuilder::set_disableflags(int flags) {
  disableflags_ = flags;
  return *this;
}

Model ModelBuilder::build() const {
  Model m;
  m.timestep = timestep_;
  m.integrator = integrator_;
  m.gravity = gravity_;
  m.density = density_;
  m.viscosity = viscosity_;
  m.wind = wind_;
  m.nbody = static_cast<int>(bodies_.size());

  // joints grouped by body, in the order they were added
  std::vector<std::vector<const JointSpec*>> body_joints(m.nbody);
  for (const Joint& j : joints_) body_joints[j.body].push_back(&j.spec);

  for (int b = 0; b < m.nbody; ++b) {
    const BodySpec& s = bodies_[b];
    m.body_name.push_back(s.name);
    m.body_parentid.push_back(parents_[b]);
    append(m.body_pos, s.pos);
    append(m.body_quat, s.quat);
    m.body_mass.push_back(s.mass);
    append(m.body_ipos, s.com);
    append(m.body_inertia, s.inertia);
    append(m.body_iquat, principal_frame(s.inertia, s.iquat));
    m.body_fluidshape.push_back(0);
    m.body_gravcomp.push_back(s.gravcomp);
    m.body_mocapid.push_back(s.mocap ? m.nmocap++ : -1);
    m.body_jntadr.push_back(m.njnt);
    m.body_dofadr.push_back(-1);
    int dofs = 0;

    for (const JointSpec* j : body_joints[b]) {
      if (j->type == JointType::kFixed) continue;
      const int jid = m.njnt++;
      const int jnq = joint_nq(static_cast<int>(j->type));
      const int jnv = joint_nv(static_cast<int>(j->type));
      m.jnt_name.push_back(j->name);
      m.jnt_type.push_back(j->type);
      m.jnt_bodyid.push_back(b);
      m.jnt_qposadr.push_back(m.nq);
      m.jnt_dofadr.push_back(m.nv);
      append(m.jnt_pos, j->pos);
      append(m.jnt_axis, j->axis);
      m.jnt_stiffness.push_back(j->stiffness);
      m.jnt_limited.push_back(j->limited ? 1 : 0);
      append(m.jnt_range, j->range);
      m.jnt_actfrclimited.push_back(j->actfrclimited ? 1 : 0);
      m.jnt_actgravcomp.push_back(j->actgravcomp ? 1 : 0);
      append(m.jnt_actfrcrange, j->actfrcrange);
      m.jnt_margin.push_back(j->margin);
      append(m.jnt_solref, j->solreflimit);
      append(m.jnt_solimp, j->solimplimit);
      if (j->type == JointType::kFree) {
        // the body frame as built: its position in the world and its orientation
        const std::array<double, 7> q0{s.pos[0],  s.pos[1],  s.pos[2], s.quat[0],
                                       s.quat[1], s.quat[2], s.quat[3]};
        append(m.qpos0, q0);
        append(m.qpos_spring, q0);
      } else if (j->type == JointType::kBall) {
        const std::array<double, 4> q0{1, 0, 0, 0};
        append(m.qpos0, q0);
        append(m.qpos_spring, q0);
      } else {
        m.qpos0.push_back(j->ref);
        m.qpos_spring.push_back(j->springref);
      }
      if (m.body_dofadr[b] < 0) m.body_dofadr[b] = m.nv;
      for (int i = 0; i < jnv; ++i) {
        m.dof_jntid.push_back(jid);
        m.dof_bodyid.push_back(b);
        m.dof_damping.push_back(j->damping);
        m.dof_armature.push_back(j->armature);
        m.dof_frictionloss.push_back(j->frictionloss);
        append(m.dof_solref, j->solreffriction);
        append(m.dof_solimp, j->solimpfriction);
      }
      m.nq += jnq;
      m.nv += jnv;
      dofs += jnv;
    }
    m.body_jntnum.push_back(m.njnt - m.body_jntadr[b]);
    m.body_dofnum.push_back(dofs);
  }

  // Σ_k (ancestor dofs of k) in 64 bits, before tree_dof is that long
  {
    std::vector<std::int64_t> depth(m.nbody, 0);
    std::int64_t njac = 0;
    for (int b = 1; b < m.nbody; ++b) {
      depth[b] = depth[m.body_parentid[b]] + m.body_dofnum[b];
      njac += depth[b];
    }
    check_instance_rows(m.nq, m.nv, static_cast<std::int64_t>(actuators_.size()), m.nbody, m.njnt,
                        njac);
  }

  // dof tree: the previous dof on the path to the root, and each body's ancestor dofs
  m.dof_parentid.assign(m.nv, -1);
  std::vector<int> last_dof(m.nbody, -1);
  m.body_treeadr.assign(m.nbody, 0);
  m.body_treenum.assign(m.nbody, 0);
  for (int b = 1; b < m.nbody; ++b) {
    const int p = m.body_parentid[b];
    int prev = last_dof[p];
    for (int i = 0; i < m.body_dofnum[b]; ++i) {
      const int dof = m.body_dofadr[b] + i;
      m.dof_parentid[dof] = prev;
      prev = dof;
    }
    last_dof[b] = prev;
    m.body_treeadr[b] = static_cast<int>(m.tree_dof.size());
    m.tree_dof.insert(m.tree_dof.end(), m.tree_dof.begin() + m.body_treeadr[p],
                      m.tree_dof.begin() + m.body_treeadr[p] + m.body_treenum[p]);
    for (int i = 0; i < m.body_dofnum[b]; ++i) m.tree_dof.push_back(m.body_dofadr[b] + i);
    m.body_treenum[b] = static_cast<int>(m.tree_dof.size()) - m.body_treeadr[b];
  }

  // InertiaRule::kMassMatrix: whatever the inertias, the joints must make H positive definite
  if (inertia_rule_ == InertiaRule::kMassMatrix) check_mass_matrix(m);
  // InertiaRule::kRigidBody: a moving body must carry mass somewhere below it
  std::vector<double> subtree_mass(m.body_mass);
  for (int b = m.nbody - 1; b > 0; --b) subtree_mass[m.body_parentid[b]] += subtree_mass[b];
  for (int b = 1; inertia_rule_ == InertiaRule::kRigidBody && b < m.nbody; ++b) {
    if (m.body_dofnum[b] > 0 && !(subtree_mass[b] > 0)) {
      throw ModelError(
          fmt::format("{}: mass must be positive (got {}): the body has joints and "
                      "nothing below it carries mass",
                      body_label(m.body_name[b]), m.body_mass[b]));
    }
    // a point mass may be welded, not moved on its own joints (MuJoCo's rule too)
    const Inertia6& inertia = bodies_[b].inertia;
    if (m.body_dofnum[b] > 0 && m.body_mass[b] > 0) {
      const Eigen::Vector3d ev = principal_moments(inertia);
      if (!(ev[0] > 0)) {
        throw ModelError(fmt::format(
            "{}: a body on joints needs a positive definite inertia (principal moments {:.6g} "
            "{:.6g} {:.6g})",
            body_label(m.body_name[b]), ev[0], ev[1], ev[2]));
      }
    }
  }

  // the free joints that move their tree as one rigid body, whose 6 dofs implicitfast solves
  // apart with the velocity derivative of the tree's Coriolis force (kernels/implicit.h)
  {
    std::vector<int> subtree_dofs(m.body_dofnum);
    for (int b = m.nbody - 1; b > 0; --b) subtree_dofs[m.body_parentid[b]] += subtree_dofs[b];
    m.jnt_freebody.assign(m.njnt, -1);
    for (int j = 0; j < m.njnt; ++j) {
      const int b = m.jnt_bodyid[j];
      const bool alone = m.jnt_type[j] == JointType::kFree && subtree_dofs[b] == 6;
      m.jnt_freebody[j] = alone ? b : -1;
    }
  }

  for (const ActuatorSpec& a : actuators_) {
    m.actuator_name.push_back(a.name);
    m.actuator_type.push_back(a.type);
    const bool tendon = !a.tendon.empty();
    m.actuator_trntype.push_back(
        static_cast<int>(tendon ? TransmissionType::kTendon : TransmissionType::kJoint));
    m.actuator_trnid.push_back(tendon ? tendon_index(a.tendon) : m.id(ObjType::kJoint, a.joint));
    m.actuator_gear.push_back(a.gear);
    double gain = a.gain;
    std::array<double, 3> bias = a.bias;
    switch (a.type) {
      case ActuatorType::kMotor:
        gain = 1;
        bias = {0, 0, 0};
        break;
      case ActuatorType::kPosition:
        gain = a.kp;
        // a damping ratio stays positive until set_damping_ratios() turns it into −kd
        bias = {a.bias[0], -a.kp, a.dampratio > 0 ? a.dampratio : -a.kd};
        break;
      case ActuatorType::kVelocity:
        gain = a.kv;
        bias = {0, 0, -a.kv};
        break;
      case ActuatorType::kGeneral:
      case ActuatorType::kCylinder:
      case ActuatorType::kMuscle:
        break;
    }
    // the shortcuts motor, position and velocity have a fixed gain and no dynamics
    const bool shortcut = a.type == ActuatorType::kMotor || a.type == ActuatorType::kPosition ||
                          a.type == ActuatorType::kVelocity;
    const ActuatorGain gaintype = shortcut ? ActuatorGain::kFixed : a.gaintype;
    const ActuatorBias biastype = a.biastype == ActuatorBias::kMuscle      ? ActuatorBias::kMuscle
                                  : bias == std::array<double, 3>{0, 0, 0} ? ActuatorBias::kNone
                                                                           : ActuatorBias::kAffine;
    const ActuatorDyn dyn = shortcut ? ActuatorDyn::kNone : a.dyntype;
    const bool affine_gain = gaintype == ActuatorGain::kAffine;
    // muscles: F0 in gainprm0 and F0 fpmax in biasprm0 (set_muscle_constants), their curves
    const bool muscle_gain = gaintype == ActuatorGain::kMuscle;
    const bool muscle_bias = biastype == ActuatorBias::kMuscle;
    append(m.actuator_gainprm,
           std::array<double, 3>{muscle_gain ? 0 : gain, affine_gain ? a.gain_slope[0] : 0,
                                 affine_gain ? a.gain_slope[1] : 0});
    append(m.actuator_biasprm, muscle_bias ? std::array<double, 3>{0, 0, 0} : bias);
    m.actuator_gaintype.push_back(gaintype);
    m.actuator_biastype.push_back(biastype);
    m.actuator_dyntype.push_back(dyn);
    const bool has_prm = dyn == ActuatorDyn::kFilter || dyn == ActuatorDyn::kFilterExact ||
                         dyn == ActuatorDyn::kMuscle;
    append(m.actuator_dynprm, has_prm ? a.dynprm : std::array<double, 3>{1, 0, 0});
    append(m.actuator_lengthrange,
           muscle_gain || muscle_bias ? a.lengthrange : std::array<double, 2>{0, 0});
    // L0 = (lengthrange1 − lengthrange0) / max(range1 − range0, 1e-15)
    const auto optimum = [&](const std::array<double, 9>& p) {
      return (a.lengthrange[1] - a.lengthrange[0]) / std::max(1e-15, p[1] - p[0]);
    };
    const std::array<double, 9>& g = a.muscle_gain;
    const std::array<double, 9>& mb = a.muscle_bias;
    append(m.actuator_musclegain, muscle_gain
                                      ? std::array<double, 8>{a.lengthrange[0], optimum(g), g[0],
                                                              g[4], g[5], g[6], g[8], 0}
                                      : std::array<double, 8>{});
    append(m.actuator_musclebias,
           muscle_bias ? std::array<double, 4>{a.lengthrange[0], optimum(mb), mb[0], mb[5]}
                       : std::array<double, 4>{});
    m.actuator_actadr.push_back(dyn == ActuatorDyn::kNone ? -1 : m.na++);
    m.actuator_actlimited.push_back(a.actlimited && dyn != ActuatorDyn::kNone ? 1 : 0);
    m.actuator_actearly.push_back(a.actearly && dyn != ActuatorDyn::kNone ? 1 : 0);
    append(m.actuator_actrange, a.actrange);
    m.actuator_ctrllimited.push_back(a.ctrllimited ? 1 : 0);
    append(m.actuator_ctrlrange, a.ctrlrange);
    m.actuator_forcelimited.push_back(a.forcelimited ? 1 : 0);
    append(m.actuator_forcerange, a.forcerange);
  }
  m.nu = static_cast<int>(actuators_.size());

  m.iterations = iterations_;
  m.tolerance = tolerance_;
  for (const EqualitySpec& e : equalities_) {
    const bool joint = e.type == EqualityType::kJoint;
    m.eq_name.push_back(e.name);
    m.eq_type.push_back(e.type);
    const bool tendon = e.type == EqualityType::kTendon;
    auto object = [&](const std::string& name) {
      return joint    ? m.id(ObjType::kJoint, name)
             : tendon ? tendon_index(name)
                      : m.id(ObjType::kBody, name);
    };
    m.eq_obj1id.push_back(object(e.obj1));
    m.eq_obj2id.push_back((joint || tendon) && e.obj2.empty() ? -1 : object(e.obj2));
    m.eq_active.push_back(e.active ? 1 : 0);
    m.eq_hard.push_back(e.hard ? 1 : 0);
    std::array<double, 11> data{};
    data[10] = 1;
    if (joint || tendon) {
      std::copy(e.polycoef.begin(), e.polycoef.end(), data.begin());
    } else {
      std::copy(e.anchor.begin(), e.anchor.end(), data.begin());
      if (e.type == EqualityType::kWeld)
        std::copy(e.relpose.begin(), e.relpose.end(), data.begin() + 3);
      data[10] = e.torquescale;
    }
    append(m.eq_data, data);
    append(m.eq_solref, e.solref);
    append(m.eq_solimp, e.solimp);
  }
  m.neq = static_cast<int>(equalities_.size());
  for (const DriveSpec& d : drives_) {
    m.drive_jnt.push_back(m.id(ObjType::kJoint, d.joint));
    append(m.drive_prm, std::array<double, 5>{d.q0, d.v0, d.amplitude, d.omega, d.phase});
    append(m.drive_solref, d.solref);
  }
  m.ndrive = static_cast<int>(drives_.size());
  for (const NonholonomicSpec& c : nonholonomic_) {
    m.nhc_name.push_back(c.name);
    m.nhc_type.push_back(c.type);
    m.nhc_body.push_back(m.id(ObjType::kBody, c.body));
    if (c.type == NonholonomicType::kKnifeEdge) {
      const Vec3d& e = c.direction;
      const double n = std::sqrt(e[0] * e[0] + e[1] * e[1] + e[2] * e[2]);
      append(m.nhc_data, std::array<double, 6>{c.point[0], c.point[1], c.point[2], e[0] / n,
                                               e[1] / n, e[2] / n});
    } else {
      append(m.nhc_data, std::array<double, 6>{c.radius, c.height, 0, 0, 0, 0});
    }
    append(m.nhc_solref, c.solref);
  }
  m.nnhc = static_cast<int>(nonholonomic_.size());
  add_contacts(m);
  add_sites(m);
  add_fused(m);
  add_tendons(m);
  add_sensors(m);
  add_keyframes(m);
  m.disableflags = disableflags_;
  m.wrap_rules = wrap_rules_;
  m.rules = rules_;
  {
    const RowPlan plan = plan_rows(m);
    check_instance_rows(m.nq, m.nv, m.nu, m.nbody, m.njnt, static_cast<int>(m.tree_dof.size()),
                        plan.nefc, plan.nhard, m.ndrive, m.ngeom, plan.nconmax, plan.ncon_rows,
                        m.nsensor, m.nsensordata, sensor_body_rows(m), m.nmocap, m.ntendon, m.na);
  }
  set_constraint_constants(m);
  set_muscle_constants(m, actuators_);
  set_damping_ratios(m);
  check_hard_rows(m);
  return m;
}

const std::vector<std::string>* Model::names(ObjType type) const {
  switch (type) {
    case ObjType::kBody:
    case ObjType::kXBody:
      return &body_name;
    case ObjType::kJoint:
      return &jnt_name;
    case ObjType::kGeom:
      return &geom_name;
    case ObjType::kSite:
      return &site_name;
    case ObjType::kMesh:
      return &mesh_name;
    case ObjType::kHfield:
      return &hfield_name;
    case ObjType::kEquality:
      return &eq_name;
    case ObjType::kTendon:
      return &tendon_name;
    case ObjType::kActuator:
      return &actuator_name;
    case ObjType::kSensor:
      return &sensor_name;
    case ObjType::kKey:
      return &key_name;
    default:
      return nullptr;
  }
}

int Model::id(ObjType type, std::string_view name) const {
  // "" names no object, as in MuJoCo 3 and 4: the unnamed ones are not found by name
  const std::vector<std::string>* all = names(type);
  if (all == nullptr || name.empty()) return -1;
  const auto it = std::find(all->begin(), all->end(), name);
  return it == all->end() ? -1 : static_cast<int>(it - all->begin());
}

int Model::fused_id(std::string_view name) const {
  if (name.empty()) return -1;
  const auto it = std::find(fused_name.begin(), fused_name.end(), name);
  return it == fused_name.end() ? -1 : static_cast<int>(it - fused_name.begin());
}

Sizes Model::sizes() const {
  // validate() has bounded every row count (check_instance_rows), so these fit in int
  const std::int64_t nM = static_cast<std::int64_t>(nv) * (nv + 1) / 2;
  const RowPlan plan = plan_rows(*this);
  return {nq,
          nv,
          nu,
          nbody,
          njnt,
          static_cast<int>(nM),
          static_cast<int>(tree_dof.size()),
          plan.nefc,
          plan.nhard,
          ndrive,
          ngeom,
          plan.nconmax,
          plan.ncon_rows,
          nsensor,
          nsensordata,
          sensor_body_rows(*this),
          nmocap,
          ntendon,
          na};
}

double Model::total_mass() const {
  double total = 0;
  for (double mass : body_mass) total += mass;
  return total;
}

}  // namespace zwang
