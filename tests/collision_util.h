// The harness of the narrow-phase tests (test_collision.cc, test_collision_box.cc): a case is an
// MJCF model of two geoms (a plane in the world body, other geoms on free bodies so that nothing
// filters the pair), posed through qpos; MuJoCo 2.2.2's mj_kinematics and mj_collision give the
// contacts and the inputs of zwang's collide (geom_xpos, geom_xmat, geom_size, the larger geom
// margin), and the Tally keeps the largest |zwang − MuJoCo| of dist, pos and frame.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kernels/narrowphase.h"
#include "mujoco_util.h"

namespace zwang::test {

using Rng = std::mt19937_64;
using Quat4 = std::array<double, 4>;  // w, x, y, z

constexpr Quat4 kIdentity{1, 0, 0, 0};

// |zwang − MuJoCo| of dist, pos and frame entries in double (MuJoCo's order of operations is
// kept) and in float
constexpr double kTol = 1e-9;
constexpr double kFloatTol = 1e-4;

// a geom as MJCF sees it: the plane's pose is in the world body, the others' go to qpos
struct Placement {
  int type;
  std::array<double, 3> size;
  double margin;
  std::array<double, 3> pos;
  Quat4 quat;
};

// two geoms, in the order of the MJCF file
struct Case {
  Placement a, b;
};

inline const char* type_name(int type) {
  static const char* names[] = {"plane",     "hfield",   "sphere", "capsule",
                                "ellipsoid", "cylinder", "box",    "mesh"};
  return names[type];
}

inline int size_count(int type) {
  return type == GeomType::kSphere
             ? 1
             : (type == GeomType::kBox || type == GeomType::kPlane || type == GeomType::kEllipsoid
                    ? 3
                    : 2);
}

inline std::string geom_xml(const Placement& p, bool pose) {
  std::string size;
  for (int i = 0; i < size_count(p.type); ++i) size += fmt::format("{:.17g} ", p.size[i]);
  std::string xml = fmt::format(R"(<geom type="{}" size="{}" margin="{:.17g}")", type_name(p.type),
                                size, p.margin);
  if (pose) {
    xml += fmt::format(R"( pos="{:.17g} {:.17g} {:.17g}" quat="{:.17g} {:.17g} {:.17g} {:.17g}")",
                       p.pos[0], p.pos[1], p.pos[2], p.quat[0], p.quat[1], p.quat[2], p.quat[3]);
  }
  return xml + "/>";
}

// room for box–box's 24 contacts whatever MuJoCo's default
inline std::string mjcf(const Case& c) {
  std::string xml = "<mujoco><size nconmax=\"100\"/><worldbody>\n";
  for (const Placement* p : {&c.a, &c.b}) {
    xml += p->type == GeomType::kPlane ? geom_xml(*p, true)
                                       : "<body><freejoint/>" + geom_xml(*p, false) + "</body>";
    xml += "\n";
  }
  return xml + "</worldbody></mujoco>\n";
}

// MuJoCo's contacts of a case, and the inputs of zwang's collide for them
struct Oracle {
  int t1 = 0, t2 = 0;  // MuJoCo's geom1 and geom2 have these types, t1 ≤ t2
  GeomPose<double> g1, g2;
  double margin = 0;
  bool filtered = false;  // MuJoCo's bounding-sphere filter rejected the pair
  std::vector<ContactGeo<double>> contacts;
};

inline GeomPose<double> pose_of(const mjModel* m, const mjData* d, int g) {
  GeomPose<double> p;
  p.pos = {d->geom_xpos[3 * g], d->geom_xpos[3 * g + 1], d->geom_xpos[3 * g + 2]};
  std::copy(d->geom_xmat + 9 * g, d->geom_xmat + 9 * g + 9, p.mat.m);
  p.size = {m->geom_size[3 * g], m->geom_size[3 * g + 1], m->geom_size[3 * g + 2]};
  return p;
}

inline Oracle oracle(const Case& c) {
  Oracle o;
  std::string error;
  const MjModelPtr m = load_mujoco_string(mjcf(c), "pair.xml", &error);
  EXPECT_TRUE(m) << error;
  if (!m) return o;
  m->opt.disableflags &= ~mjDSBL_CONSTRAINT;
  const MjDataPtr d(mj_makeData(m.get()));
  int q = 0;
  for (const Placement* p : {&c.a, &c.b}) {
    if (p->type == GeomType::kPlane) continue;
    std::copy(p->pos.begin(), p->pos.end(), d->qpos + q);
    std::copy(p->quat.begin(), p->quat.end(), d->qpos + q + 3);
    q += 7;
  }
  mj_kinematics(m.get(), d.get());
  mj_collision(m.get(), d.get());
  // MuJoCo's geom1 has the smaller type, then the smaller id
  const int g1 = m->geom_type[0] <= m->geom_type[1] ? 0 : 1, g2 = 1 - g1;
  o.t1 = m->geom_type[g1];
  o.t2 = m->geom_type[g2];
  o.g1 = pose_of(m.get(), d.get(), g1);
  o.g2 = pose_of(m.get(), d.get(), g2);
  o.margin = std::max(m->geom_margin[0], m->geom_margin[1]);
  const Vec3<double> gap = o.g1.pos - o.g2.pos;
  o.filtered = norm(gap) > m->geom_rbound[0] + m->geom_rbound[1] + o.margin;
  for (int i = 0; i < d->ncon; ++i) {
    const mjContact& con = d->contact[i];
    EXPECT_EQ(con.geom1, g1);
    EXPECT_EQ(con.geom2, g2);
    ContactGeo<double> g;
    g.dist = con.dist;
    g.pos = {con.pos[0], con.pos[1], con.pos[2]};
    std::copy(con.frame, con.frame + 9, g.frame.m);
    o.contacts.push_back(g);
  }
  return o;
}

template <class T>
GeomPose<T> cast(const GeomPose<double>& p) {
  GeomPose<T> q;
  q.pos = {T(p.pos.x), T(p.pos.y), T(p.pos.z)};
  for (int i = 0; i < 9; ++i) q.mat.m[i] = T(p.mat.m[i]);
  q.size = {T(p.size.x), T(p.size.y), T(p.size.z)};
  return q;
}

// how a test runs its cases
struct Harness {
  bool box;      // collide_box and max_contacts_box, not collide and max_contacts
  bool nearest;  // MuJoCo's contact i is matched with zwang's nearest unused one by pos (and
                 // must be zwang's i where counts are exact), not with zwang's i
  bool filter;   // like MuJoCo's driver, pairs beyond the bounding spheres are not compared
};

// zwang's contacts for MuJoCo's inputs, in T
template <class T>
std::vector<ContactGeo<T>> zwang_contacts(const Oracle& o, const Harness& h) {
  std::vector<ContactGeo<T>> out;
  auto emit = [&](const ContactGeo<T>& g) { out.push_back(g); };
  const GeomPose<T> g1 = cast<T>(o.g1), g2 = cast<T>(o.g2);
  // MuJoCo 2.2.2's pairs: its rules
  const int n = h.box ? collide_box(o.t1, o.t2, g1, g2, T(o.margin), emit, Rules::kMujoco2)
                      : collide(o.t1, o.t2, g1, g2, T(o.margin), emit, Rules::kMujoco2);
  EXPECT_EQ(n, std::ssize(out));
  EXPECT_LE(n, h.box ? max_contacts_box(o.t1, o.t2) : max_contacts(o.t1, o.t2));
  return out;
}

// the largest |zwang − MuJoCo| over the cases whose counts agree
struct Tally {
  double dist = 0, pos = 0, frame = 0;
  int cases = 0, touching = 0, several = 0, contacts = 0, positive = 0, most = 0;
  int filtered = 0, filtered_found = 0;  // zwang's contacts where the driver skips the pair
  int count_mismatch = 0, order_mismatch = 0;
};

// MuJoCo's contacts against zwang's; `exact`: the counts (and with h.nearest the order) must
// agree
template <class T>
void compare(const std::vector<ContactGeo<T>>& zw, const Oracle& o, const Harness& h, double tol,
             Tally& e, const std::string& where, bool exact) {
  ++e.cases;
  e.touching += o.contacts.empty() ? 0 : 1;
  e.several += o.contacts.size() > 1 ? 1 : 0;
  e.contacts += static_cast<int>(o.contacts.size());
  e.most = std::max(e.most, static_cast<int>(o.contacts.size()));
  if (zw.size() != o.contacts.size()) {
    ++e.count_mismatch;
    EXPECT_FALSE(exact) << where << ": zwang " << zw.size() << " contacts, MuJoCo "
                        << o.contacts.size();
    return;
  }
  std::vector<bool> used(zw.size(), false);
  for (std::size_t i = 0; i < o.contacts.size(); ++i) {
    const ContactGeo<double>& m = o.contacts[i];
    e.positive += m.dist > 0 ? 1 : 0;
    std::size_t k = i;
    if (h.nearest) {
      // zwang's nearest unused contact
      k = zw.size();
      double nearest = std::numeric_limits<double>::infinity();
      for (std::size_t j = 0; j < zw.size(); ++j) {
        const Vec3<double> z{double(zw[j].pos.x), double(zw[j].pos.y), double(zw[j].pos.z)};
        const double d = norm(z - m.pos);
        if (!used[j] && d < nearest) {
          nearest = d;
          k = j;
        }
      }
      used[k] = true;
      if (k != i) ++e.order_mismatch;
      if (exact) {
        EXPECT_EQ(k, i) << where << ": MuJoCo's contact " << i << " is zwang's " << k;
      }
    }
    const ContactGeo<T>& z = zw[k];
    const double dd = std::abs(double(z.dist) - m.dist);
    const double dp =
        std::max({std::abs(double(z.pos.x) - m.pos.x), std::abs(double(z.pos.y) - m.pos.y),
                  std::abs(double(z.pos.z) - m.pos.z)});
    double df = 0;
    for (int f = 0; f < 9; ++f) df = std::max(df, std::abs(double(z.frame.m[f]) - m.frame.m[f]));
    e.dist = std::max(e.dist, dd);
    e.pos = std::max(e.pos, dp);
    e.frame = std::max(e.frame, df);
    EXPECT_LE(std::max({dd, dp, df}), tol) << fmt::format(
        "{} contact {}: dist {:.17g} / MuJoCo {:.17g}, error dist {:.3g} pos {:.3g} frame {:.3g}",
        where, i, double(z.dist), m.dist, dd, dp, df);
  }
}

// each case in double to `tol` with exact counts into `dbl` and, when `flt` is given, in float
// to `float_tol` (counts may differ at the margin to rounding) into *flt
inline void compare_cases(const std::string& label, const std::vector<Case>& cases,
                          const Harness& h, double tol, Tally& dbl, double float_tol = 0,
                          Tally* flt = nullptr) {
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Oracle o = oracle(cases[i]);
    if (h.filter && o.filtered) {
      ++dbl.filtered;
      dbl.filtered_found += zwang_contacts<double>(o, h).empty() ? 0 : 1;
      EXPECT_TRUE(o.contacts.empty());
      continue;
    }
    const std::string where = fmt::format("{} case {}\n{}", label, i, mjcf(cases[i]));
    compare(zwang_contacts<double>(o, h), o, h, tol, dbl, where, true);
    if (flt) compare(zwang_contacts<float>(o, h), o, h, float_tol, *flt, where, false);
  }
}

// random poses -------------------------------------------------------------------------------

inline double uniform(Rng& rng, double lo, double hi) {
  return std::uniform_real_distribution<double>(lo, hi)(rng);
}

inline Quat4 random_quat(Rng& rng) {
  std::normal_distribution<double> normal(0, 1);
  Quat4 q;
  double n = 0;
  for (double& x : q) {
    x = normal(rng);
    n += x * x;
  }
  for (double& x : q) x /= std::sqrt(n);
  return q;
}

// a ⊗ b
inline Quat4 qmul(const Quat4& a, const Quat4& b) {
  const Quat<double> r =
      mul(Quat<double>{a[0], a[1], a[2], a[3]}, Quat<double>{b[0], b[1], b[2], b[3]});
  return {r.w, r.x, r.y, r.z};
}

inline Mat3<double> rotation(const Quat4& q) {
  return to_mat(Quat<double>{q[0], q[1], q[2], q[3]});
}

// the rotated coordinate axis c
inline Vec3<double> axis(const Quat4& q, int c) {
  return column(rotation(q), c);
}

inline std::array<double, 3> arr(const Vec3<double>& v) {
  return {v.x, v.y, v.z};
}
inline Vec3<double> vec(const std::array<double, 3>& a) {
  return {a[0], a[1], a[2]};
}

// a geom of `type` with random size, margin (zero in half the cases) and pose
inline Placement random_geom(int type, Rng& rng) {
  Placement p{type, {}, 0, {}, random_quat(rng)};
  if (type == GeomType::kPlane) {
    p.size = {5, 5, 0.1};
  } else if (type == GeomType::kBox) {
    for (double& s : p.size) s = uniform(rng, 0.05, 0.5);
  } else {
    p.size = {uniform(rng, 0.05, 0.4), uniform(rng, 0.05, 0.6), 0};
  }
  p.margin = uniform(rng, 0, 1) < 0.5 ? 0.0 : uniform(rng, 0, 0.1);
  p.pos = {uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5), uniform(rng, -0.5, 0.5)};
  return p;
}

// `count` cases make(rng) from one generator seeded with `seed`
template <class Make>
std::vector<Case> random_cases(int count, std::uint64_t seed, Make make) {
  Rng rng(seed);
  std::vector<Case> cases;
  for (int i = 0; i < count; ++i) cases.push_back(make(rng));
  return cases;
}

}  // namespace zwang::test
