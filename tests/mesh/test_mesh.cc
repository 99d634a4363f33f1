// MJCF meshes.  The test writes a box and a tetrahedron as binary STL, ASCII STL and OBJ files
// and checks what zwang derives from them against closed forms (volume, centre of mass, inertia
// of a uniform solid, of the equivalent inertia box MuJoCo 2.2.2 spreads the mass over, of a
// shell) and against MuJoCo 2.2.2 on the same files (body masses, centres and inertias, the
// mesh geoms' frames and convex hulls placed in the world, the mass matrix and bias forces):
// placement (scale, refpos, refquat, a mirroring scale), inline vertices and faces, fitted
// primitives, meshdir, exactmeshinertia, shellinertia.  MuJoCo 3's inertia attribute, which
// MuJoCo 2.2.2 does not have, against closed forms; then errors and warnings.
//
// The vertices are dyadic numbers, exact in the single precision meshes are kept in; MuJoCo
// 2.2.2's processing rounds to single precision on the way (triangle centroids, products), so
// its closed forms hold to 1e-6, MuJoCo 3's to 1e-9.  Against MuJoCo, masses and inertias agree to
// 1e-6 relative: MuJoCo's 3×3 eigen-solver, whose eigenvalues give the equivalent box, stops near
// 1e-7.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

// `text` contains `part`; the text in the message when it does not
::testing::AssertionResult Contains(const std::string& text, const std::string& part) {
  if (text.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "'" << text << "' does not contain '" << part << "'";
}

constexpr double kRho = 700;
// MuJoCo 2.2.2 processes a mesh in single precision (float vertices, centroids, products), MuJoCo
// 3 in double: the closed forms hold to these relative tolerances
constexpr double kSingle = 1e-6, kDouble = 1e-9;
// MuJoCo 3's and 4's principal axes (Jacobi rotations that stop once a turn's cosine is within
// 1e-12 of 1, about 1e-6 rad) recompose the inertia to some 1e-8
constexpr double kJacobi = 2e-8;

// ---------------------------------------------------------------------------------------------
// the shapes and their files

struct Shape {
  std::vector<Eigen::Vector3d> vert;
  std::vector<std::array<int, 3>> face;  // counter-clockwise seen from outside
};

// a box of half-sizes h centred at c
Shape box(const Eigen::Vector3d& h, const Eigen::Vector3d& c) {
  Shape s;
  for (int i = 0; i < 8; ++i) {
    s.vert.push_back(c + Eigen::Vector3d((i & 1 ? 1 : -1) * h.x(), (i & 2 ? 1 : -1) * h.y(),
                                         (i & 4 ? 1 : -1) * h.z()));
  }
  // each side k = ±1 of axis a: its corners counter-clockwise about the outward normal
  for (int a = 0; a < 3; ++a) {
    for (int side : {-1, 1}) {
      const int u = (a + 1) % 3, w = (a + 2) % 3;
      auto corner = [&](int su, int sw) {
        return (side > 0 ? 1 << a : 0) | (su > 0 ? 1 << u : 0) | (sw > 0 ? 1 << w : 0);
      };
      std::array<int, 4> q{corner(-1, -1), corner(1, -1), corner(1, 1), corner(-1, 1)};
      if (side < 0) std::swap(q[1], q[3]);
      s.face.push_back({q[0], q[1], q[2]});
      s.face.push_back({q[0], q[2], q[3]});
    }
  }
  return s;
}

// the tetrahedron o, o + a e_x, o + b e_y, o + c e_z
Shape tetrahedron(double a, double b, double c, const Eigen::Vector3d& o) {
  Shape s;
  s.vert = {o, o + Eigen::Vector3d(a, 0, 0), o + Eigen::Vector3d(0, b, 0),
            o + Eigen::Vector3d(0, 0, c)};
  s.face = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  return s;
}

const Eigen::Vector3d kBoxHalf(0.125, 0.25, 0.375), kBoxCentre(0.5, -0.25, 0.125);
const Eigen::Vector3d kTetraEdges(0.5, 0.25, 0.125), kTetraOrigin(0.0625, -0.125, 0.25);

Shape the_box() {
  return box(kBoxHalf, kBoxCentre);
}
Shape the_tetrahedron() {
  return tetrahedron(kTetraEdges.x(), kTetraEdges.y(), kTetraEdges.z(), kTetraOrigin);
}

void write_stl_binary(const fs::path& path, const Shape& s) {
  std::ofstream out(path, std::ios::binary);
  const std::string header(80, ' ');
  out.write(header.data(), 80);
  const std::uint32_t n = static_cast<std::uint32_t>(s.face.size());
  out.write(reinterpret_cast<const char*>(&n), 4);
  for (const auto& f : s.face) {
    float data[12] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) {
      for (int j = 0; j < 3; ++j) data[3 + 3 * k + j] = static_cast<float>(s.vert[f[k]](j));
    }
    out.write(reinterpret_cast<const char*>(data), sizeof data);
    const std::uint16_t attribute = 0;
    out.write(reinterpret_cast<const char*>(&attribute), 2);
  }
}

void write_stl_ascii(const fs::path& path, const Shape& s) {
  std::ofstream out(path);
  out << "solid shape\n";
  for (const auto& f : s.face) {
    out << "  facet normal 0 0 0\n    outer loop\n";
    for (int k : f) {
      out << fmt::format("      vertex {} {} {}\n", s.vert[k].x(), s.vert[k].y(), s.vert[k].z());
    }
    out << "    endloop\n  endfacet\n";
  }
  out << "endsolid shape\n";
}

void write_obj(const fs::path& path, const Shape& s) {
  std::ofstream out(path);
  out << "# written by test_mesh\no shape\n";
  for (const auto& v : s.vert) out << fmt::format("v {} {} {}\n", v.x(), v.y(), v.z());
  for (const auto& f : s.face) out << fmt::format("f {} {} {}\n", f[0] + 1, f[1] + 1, f[2] + 1);
}

// MuJoCo's binary MSH: counts (vertices, normals, texture coordinates, triangles), then the
// arrays; `normals` writes one (unused) normal per vertex
void write_msh(const fs::path& path, const Shape& s, bool normals = false) {
  std::ofstream out(path, std::ios::binary);
  const auto nvert = static_cast<std::int32_t>(s.vert.size());
  const std::int32_t count[4] = {nvert, normals ? nvert : 0, 0,
                                 static_cast<std::int32_t>(s.face.size())};
  out.write(reinterpret_cast<const char*>(count), sizeof count);
  for (const auto& v : s.vert) {
    const float xyz[3] = {static_cast<float>(v.x()), static_cast<float>(v.y()),
                          static_cast<float>(v.z())};
    out.write(reinterpret_cast<const char*>(xyz), sizeof xyz);
  }
  for (std::int32_t i = 0; normals && i < nvert; ++i) {
    const float n[3] = {0, 0, 1};
    out.write(reinterpret_cast<const char*>(n), sizeof n);
  }
  for (const auto& f : s.face) {
    const std::int32_t tri[3] = {f[0], f[1], f[2]};
    out.write(reinterpret_cast<const char*>(tri), sizeof tri);
  }
}

std::string read_binary(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
}

// one directory of files for this process, written once, removed at exit
struct TempDir {
  fs::path path;
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

const fs::path& dir() {
  static const TempDir d{[] {
    const fs::path p = fs::temp_directory_path() / fmt::format("zwang_test_mesh_{}", getpid());
    fs::create_directories(p / "sub");
    write_stl_binary(p / "box.stl", the_box());
    write_stl_ascii(p / "box_ascii.stl", the_box());
    write_obj(p / "box.obj", the_box());
    write_obj(p / "unnamed.obj", the_box());
    write_stl_binary(p / "tetra.stl", the_tetrahedron());
    write_stl_ascii(p / "tetra_ascii.STL", the_tetrahedron());
    write_obj(p / "tetra.obj", the_tetrahedron());
    write_obj(p / "sub" / "tetra.obj", the_tetrahedron());
    write_msh(p / "box.msh", the_box());
    write_msh(p / "tetra.MSH", the_tetrahedron(), true);
    return p;
  }()};
  return d.path;
}

// ---------------------------------------------------------------------------------------------
// closed forms

struct Mass {
  double mass;
  Eigen::Vector3d com;
  Eigen::Matrix3d inertia;  // about the COM
};

// a uniform solid of density ρ by the divergence theorem over its (closed, outward) triangles:
// each tetrahedron (0, a, b, c) has volume a·(b × c)/6, centre (a + b + c)/4 and second moments
// ∫ x xᵀ = V/20 (Σ v vᵀ + (Σ v)(Σ v)ᵀ)
Mass solid(const Shape& s, double rho) {
  double volume = 0;
  Eigen::Vector3d first = Eigen::Vector3d::Zero();
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();
  for (const auto& f : s.face) {
    const Eigen::Vector3d &a = s.vert[f[0]], &b = s.vert[f[1]], &c = s.vert[f[2]];
    const double v = a.dot(b.cross(c)) / 6;
    const Eigen::Vector3d sum = a + b + c;
    volume += v;
    first += v * sum / 4;
    second += v / 20 *
              (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
  }
  Mass m;
  m.mass = rho * volume;
  m.com = first / volume;
  const Eigen::Matrix3d central = rho * (second - volume * m.com * m.com.transpose());
  m.inertia = central.trace() * Eigen::Matrix3d::Identity() - central;
  return m;
}

// MuJoCo 2.2.2's default: the solid's principal moments per unit mass λ_k/m give a box of
// half-sizes b_k = √(6 (Σ λ − 2 λ_k) / m) / 2; the mass is ρ 8 b₀ b₁ b₂ and the moments scale with
// it
Mass inertia_box(const Mass& solid_mass, double rho) {
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(solid_mass.inertia);
  const Eigen::Vector3d l = eig.eigenvalues() / solid_mass.mass;
  double product = 1;
  for (int k = 0; k < 3; ++k) product *= std::sqrt(6 * (l.sum() - 2 * l(k))) / 2;
  Mass m = solid_mass;
  m.mass = rho * 8 * product;
  m.inertia = solid_mass.inertia * (m.mass / solid_mass.mass);
  return m;
}

Eigen::Matrix3d tensor(const double* i) {
  Eigen::Matrix3d t;
  t << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return t;
}

void expect_body(const Model& z, int b, const Mass& want, double tol, const std::string& what) {
  EXPECT_NEAR(z.body_mass[b], want.mass, tol * want.mass) << what;
  const Eigen::Vector3d com(z.body_ipos.data() + 3 * b);
  EXPECT_LE((com - want.com).norm(), tol * std::max(1.0, want.com.norm()))
      << what << ": com " << com.transpose() << " want " << want.com.transpose();
  const Eigen::Matrix3d inertia = tensor(z.body_inertia.data() + 6 * b);
  EXPECT_LE((inertia - want.inertia).norm(), tol * want.inertia.norm()) << what << ":\n"
                                                                        << inertia << "\nwant\n"
                                                                        << want.inertia;
}

// one free body with one mesh geom of density kRho
std::string one_mesh_model(const std::string& mesh_attributes, const std::string& compiler = "",
                           const std::string& geom_attributes = "") {
  return fmt::format(
      "<mujoco>\n<compiler {}/>\n<asset>\n<mesh name=\"m\" {}/>\n</asset>\n<worldbody>\n"
      "<body name=\"b\">\n<freejoint/>\n<geom type=\"mesh\" mesh=\"m\" density=\"{}\" {}/>\n"
      "</body>\n</worldbody>\n</mujoco>\n",
      compiler, mesh_attributes, kRho, geom_attributes);
}

Model load(const std::string& xml) {
  return load_mjcf_string(xml, "mesh_test.xml", dir(), kMujoco2).model;
}

// ---------------------------------------------------------------------------------------------
// closed forms

TEST(MeshClosedForm, EveryFormatGivesTheSolidWithExactMeshInertia) {
  for (const char* file : {"box.stl", "box_ascii.stl", "box.obj", "box.msh"}) {
    const Model z =
        load(one_mesh_model(fmt::format("file=\"{}\"", file), "exactmeshinertia=\"true\""));
    const Mass want = solid(the_box(), kRho);
    EXPECT_NEAR(want.mass, kRho * 8 * kBoxHalf.prod(), 1e-12);
    expect_body(z, 1, want, kSingle, file);
  }
  for (const char* file : {"tetra.stl", "tetra_ascii.STL", "tetra.obj", "tetra.MSH"}) {
    const Model z =
        load(one_mesh_model(fmt::format("file=\"{}\"", file), "exactmeshinertia=\"true\""));
    // V = abc/6, centre o + (a, b, c)/4, I_xx = 3m (b² + c²)/80, I_xy = m ab/80
    const Eigen::Vector3d e = kTetraEdges;
    const double m = kRho * e.prod() / 6;
    Mass want{m, kTetraOrigin + e / 4, Eigen::Matrix3d::Zero()};
    for (int i = 0; i < 3; ++i) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      want.inertia(i, i) = 3 * m * (e(j) * e(j) + e(k) * e(k)) / 80;
      want.inertia(i, j) = want.inertia(j, i) = m * e(i) * e(j) / 80;
    }
    expect_body(z, 1, want, kSingle, file);
    expect_body(z, 1, solid(the_tetrahedron(), kRho), kSingle, file);
  }
}

// MuJoCo 2.2.2 by default: the mass of the equivalent inertia box, which for a box is the box
TEST(MeshClosedForm, DefaultSpreadsTheMassOverTheInertiaBox) {
  for (const char* file : {"box.stl", "box_ascii.stl", "box.obj"}) {
    expect_body(load(one_mesh_model(fmt::format("file=\"{}\"", file))), 1, solid(the_box(), kRho),
                kSingle, file);
  }
  for (const char* file : {"tetra.stl", "tetra_ascii.STL", "tetra.obj"}) {
    const Model z = load(one_mesh_model(fmt::format("file=\"{}\"", file)));
    const Mass want = inertia_box(solid(the_tetrahedron(), kRho), kRho);
    EXPECT_GT(want.mass, 1.3 * solid(the_tetrahedron(), kRho).mass);
    expect_body(z, 1, want, kSingle, file);
  }
}

// the geom's mass attribute sets the density; the geom's pos and orientation move the mesh
TEST(MeshClosedForm, GeomMassAndFrame) {
  const Model z = load(one_mesh_model("file=\"tetra.obj\"", "exactmeshinertia=\"true\"",
                                      "mass=\"3\" pos=\"1 2 3\" euler=\"0 0 90\""));
  Mass want = solid(the_tetrahedron(), 3 / (kTetraEdges.prod() / 6));
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  want.com = Eigen::Vector3d(1, 2, 3) + r * want.com;
  want.inertia = r * want.inertia * r.transpose();
  EXPECT_NEAR(want.mass, 3, 1e-12);
  expect_body(z, 1, want, kSingle, "mass=3");
}

// v ← diag(scale) Rᵀ (v − refpos): the shape the closed form gets from the same map
TEST(MeshClosedForm, Placement) {
  const Eigen::Vector3d refpos(0.25, -0.5, 1), scale(2, 0.5, -1.5);
  const Eigen::Quaterniond refquat = Eigen::Quaterniond(1, 2, -1, 0.5).normalized();
  Shape placed = the_tetrahedron();
  for (auto& v : placed.vert) {
    v = scale.asDiagonal() * (refquat.toRotationMatrix().transpose() * (v - refpos));
  }
  // a negative determinant turns the triangles inward: the file reader reverses them
  for (auto& f : placed.face) std::swap(f[1], f[2]);
  for (const char* file : {"tetra.stl", "tetra.obj"}) {
    const Model z = load(one_mesh_model(
        fmt::format("file=\"{}\" refpos=\"{} {} {}\" refquat=\"{} {} {} {}\" scale=\"{} {} {}\"",
                    file, refpos.x(), refpos.y(), refpos.z(), refquat.w(), refquat.x(), refquat.y(),
                    refquat.z(), scale.x(), scale.y(), scale.z()),
        "exactmeshinertia=\"true\""));
    const Mass want = solid(placed, kRho);
    EXPECT_GT(want.mass, 0);
    // the rotation and scale are applied in single precision, as MuJoCo
    expect_body(z, 1, want, 1e-6, file);
  }
}

// MuJoCo 3's inertia attribute on the mesh (or its class): the mass is ρ times the volume
TEST(MeshClosedForm, Mujoco3InertiaAttribute) {
  // legacy and exact of a convex solid: the solid, without 2.2.2's inertia box
  for (const char* inertia : {"legacy", "exact", "convex"}) {
    expect_body(load(one_mesh_model(fmt::format("file=\"tetra.stl\" inertia=\"{}\"", inertia))), 1,
                solid(the_tetrahedron(), kRho), kJacobi, inertia);
  }
  // a box whose top is pushed in to a point d below it: exact is the dented solid, convex the box
  Shape dented = the_box();
  const double d = 0.25;
  dented.vert.push_back(kBoxCentre + Eigen::Vector3d(0, 0, kBoxHalf.z() - d));
  std::vector<std::array<int, 3>> faces;
  for (const auto& f : dented.face) {
    const bool top = dented.vert[f[0]].z() > kBoxCentre.z() &&
                     dented.vert[f[1]].z() > kBoxCentre.z() &&
                     dented.vert[f[2]].z() > kBoxCentre.z();
    if (!top) faces.push_back(f);
  }
  for (auto [a, b] : std::array<std::array<int, 2>, 4>{{{4, 5}, {5, 7}, {7, 6}, {6, 4}}}) {
    faces.push_back({a, b, 8});
  }
  dented.face = faces;
  write_obj(dir() / "dented.obj", dented);
  const Mass exact = solid(dented, kRho);
  EXPECT_NEAR(exact.mass, kRho * (8 * kBoxHalf.prod() - 4 * kBoxHalf.x() * kBoxHalf.y() * d / 3),
              1e-9);
  expect_body(load(one_mesh_model("file=\"dented.obj\" inertia=\"exact\"")), 1, exact, kJacobi,
              "exact");
  expect_body(load(one_mesh_model("file=\"dented.obj\" inertia=\"convex\"")), 1,
              solid(the_box(), kRho), kJacobi, "convex");
  // the surface of a cube of side L: mass ρ 6 L², moments 5 m L² / 18 about its centre
  const double side = 0.5;
  write_stl_binary(dir() / "cube.stl", box(Eigen::Vector3d::Constant(side / 2), kBoxCentre));
  const double m = kRho * 6 * side * side;
  std::string xml = one_mesh_model("file=\"cube.stl\" class=\"shell\"");
  xml.replace(xml.find("<asset>"), 0,
              "<default><default class=\"shell\"><mesh inertia=\"shell\"/></default></default>\n");
  expect_body(load(xml), 1, {m, kBoxCentre, 5 * m * side * side / 18 * Eigen::Matrix3d::Identity()},
              kJacobi, "shell");
}

// geom shellinertia: the mass ρ A on the surface, about the area centroid, as MuJoCo 3's
// inertia="shell" (MuJoCo 2.2.2 puts the centre at ¾ of the centroid, in the principal axes of
// the solid with the signs its eigen-solver picks)
TEST(MeshClosedForm, ShellInertia) {
  const double side = 0.5;
  write_stl_binary(dir() / "cube_shell.stl", box(Eigen::Vector3d::Constant(side / 2), kBoxCentre));
  const double m = kRho * 6 * side * side;
  const Model z = load(one_mesh_model("file=\"cube_shell.stl\"", "",
                                      "shellinertia=\"true\" pos=\"1 0 0\" euler=\"0 90 0\""));
  const Eigen::Matrix3d r =
      Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitY()).toRotationMatrix();
  expect_body(z, 1,
              {m, Eigen::Vector3d(1, 0, 0) + r * kBoxCentre,
               5 * m * side * side / 18 * Eigen::Matrix3d::Identity()},
              kSingle, "shellinertia");
  // the tetrahedron's surface: its four triangles, each with its mass at its own centroid
  const Model t = load(one_mesh_model("file=\"tetra.obj\"", "", "shellinertia=\"true\""));
  const Shape s = the_tetrahedron();
  double area = 0;
  Eigen::Vector3d centroid = Eigen::Vector3d::Zero();
  for (const auto& f : s.face) {
    const double a = (s.vert[f[1]] - s.vert[f[0]]).cross(s.vert[f[2]] - s.vert[f[0]]).norm() / 2;
    area += a;
    centroid += a * (s.vert[f[0]] + s.vert[f[1]] + s.vert[f[2]]) / 3;
  }
  EXPECT_NEAR(t.body_mass[1], kRho * area, kSingle * kRho * area);
  EXPECT_LE((Eigen::Vector3d(t.body_ipos.data() + 3) - centroid / area).norm(), kSingle);
}

// primitives fitted to the box mesh: its inertia box is the box; with fitaabb the bounding box
// in the mesh frame (a sphere's radius its largest half-size, as MuJoCo 3)
TEST(MeshClosedForm, FittedPrimitives) {
  auto fitted = [](const char* type, const char* compiler, const char* geom = "") {
    std::string xml = one_mesh_model("file=\"box.stl\"", compiler, geom);
    xml.replace(xml.find("type=\"mesh\""), 11, fmt::format("type=\"{}\"", type));
    return load(xml);
  };
  for (const char* compiler : {"", "fitaabb=\"true\""}) {
    const Model z = fitted("box", compiler);
    ASSERT_EQ(z.geom_type[0], GeomType::kBox);
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(z.geom_size[k], kBoxHalf(k), 1e-7) << compiler;
      EXPECT_NEAR(z.geom_pos[k], kBoxCentre(k), 1e-7) << compiler;
    }
    expect_body(z, 1, solid(the_box(), kRho), kSingle, compiler);
  }
  const Model z = fitted("sphere", "fitaabb=\"true\"", "fitscale=\"2\"");
  EXPECT_NEAR(z.geom_size[0], 2 * kBoxHalf.maxCoeff(), 1e-7);
}

// the model keeps each mesh's convex hull in the geom's frame (the principal frame), outward
TEST(MeshModel, KeepsTheConvexHull) {
  const Model z = load(one_mesh_model("file=\"box.stl\""));
  ASSERT_EQ(z.nmesh, 1);
  ASSERT_EQ(z.ngeom, 1);
  EXPECT_EQ(z.geom_type[0], GeomType::kMesh);
  EXPECT_EQ(z.geom_dataid[0], 0);
  EXPECT_EQ(z.mesh_name[0], "m");
  ASSERT_EQ(z.mesh_vertnum[0], 8);
  ASSERT_EQ(z.mesh_facenum[0], 12);
  // the geom sits at the box's centre, the box's axes along the principal axes (to single
  // precision, in which MuJoCo 2.2.2 centres the mesh)
  EXPECT_LE((Eigen::Vector3d(z.geom_pos.data()) - kBoxCentre).norm(), kSingle);
  for (int v = 0; v < 8; ++v) {
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(std::abs(z.mesh_vert[3 * v + j]), kBoxHalf(j), 1e-7);
  }
  for (int j = 0; j < 3; ++j) EXPECT_NEAR(z.geom_size[j], kBoxHalf(j), 1e-7);
  EXPECT_NEAR(z.geom_rbound[0], kBoxHalf.norm(), 1e-7);
  // outward: the signed volume of the triangles about the centre is the box's
  double volume = 0;
  for (int f = 0; f < 12; ++f) {
    const Eigen::Vector3d a(&z.mesh_vert[3 * z.mesh_face[3 * f]]);
    const Eigen::Vector3d b(&z.mesh_vert[3 * z.mesh_face[3 * f + 1]]);
    const Eigen::Vector3d c(&z.mesh_vert[3 * z.mesh_face[3 * f + 2]]);
    volume += a.dot(b.cross(c)) / 6;
  }
  EXPECT_NEAR(volume, 8 * kBoxHalf.prod(), kSingle * volume);
  z.validate();
}

// the plane contacts' polygons of a box: its six faces, four corners each, counter-clockwise
// seen from outside, the outward unit normal ±e_i; each vertex on three faces; and a hexagonal
// prism's two hexagons and six quadrilaterals
TEST(MeshModel, HullPolygonsAreTheFaces) {
  const Model z = load(one_mesh_model("file=\"box.stl\""));
  ASSERT_EQ(z.mesh_polynum[0], 6);
  std::set<std::array<int, 3>> normals;
  for (int p = 0; p < 6; ++p) {
    ASSERT_EQ(z.mesh_polyvertnum[p], 4);
    const Eigen::Vector3d n(&z.mesh_polynormal[3 * p]);
    const int axis = [&] {
      Eigen::Index i;
      n.cwiseAbs().maxCoeff(&i);
      return static_cast<int>(i);
    }();
    EXPECT_NEAR(std::abs(n[axis]), 1, 1e-12);
    normals.insert({axis, n[axis] > 0 ? 1 : -1, 0});
    for (int k = 0; k < 4; ++k) {
      const auto corner = [&](int j) {
        return Eigen::Vector3d(&z.mesh_vert[3 * z.mesh_polyvert[z.mesh_polyvertadr[p] + j % 4]]);
      };
      // on the face, and turning counter-clockwise about n
      EXPECT_NEAR(corner(k).dot(n), kBoxHalf(axis), 1e-7);
      EXPECT_GT((corner(k + 1) - corner(k)).cross(corner(k + 2) - corner(k + 1)).dot(n), 0);
    }
  }
  EXPECT_EQ(normals.size(), 6u);
  for (int v = 0; v < 8; ++v) EXPECT_EQ(z.mesh_polymapnum[v], 3);

  std::string hexagon;
  for (int k = 0; k < 6; ++k) {
    const double a = k * std::numbers::pi / 3;
    hexagon +=
        fmt::format("{} {} -0.1 {} {} 0.1 ", std::cos(a), std::sin(a), std::cos(a), std::sin(a));
  }
  const Model h = load(one_mesh_model(fmt::format("vertex=\"{}\"", hexagon)));
  ASSERT_EQ(h.mesh_polynum[0], 8);
  std::multiset<int> corners(h.mesh_polyvertnum.begin(), h.mesh_polyvertnum.end());
  EXPECT_EQ(corners, (std::multiset<int>{4, 4, 4, 4, 4, 4, 6, 6}));
  h.validate();

  // Model::validate refuses polygon arrays that point outside the mesh
  const auto refused = [&](auto&& spoil, const char* what) {
    Model bad = z;
    spoil(bad);
    try {
      bad.validate();
      ADD_FAILURE() << what << " passed validate()";
    } catch (const ModelError& e) {
      EXPECT_TRUE(Contains(e.what(), "mesh 0")) << what << ": " << e.what();
    }
  };
  refused([](Model& m) { m.mesh_polyvert[0] = 8; }, "a corner past the vertices");
  refused([](Model& m) { m.mesh_polyvertnum[0] = 2; }, "a polygon of two corners");
  refused([](Model& m) { m.mesh_polynum[0] = 7; }, "more polygons than there are");
  refused([](Model& m) { m.mesh_polymap[0] = 6; }, "a vertex on polygon 6 of 6");
  refused([](Model& m) { m.mesh_polynormal[0] = 2; }, "a normal of length 2");
}

// a mirroring scale keeps the hull outward, and MuJoCo 3's convex inertia positive
TEST(MeshModel, MirroredHullStaysOutward) {
  const Model z = load(one_mesh_model("file=\"tetra.stl\" scale=\"-1 1 1\" inertia=\"convex\""));
  ASSERT_EQ(z.mesh_facenum[0], 4);
  double volume = 0;
  for (int f = 0; f < 4; ++f) {
    const Eigen::Vector3d a(&z.mesh_vert[3 * z.mesh_face[3 * f]]);
    const Eigen::Vector3d b(&z.mesh_vert[3 * z.mesh_face[3 * f + 1]]);
    const Eigen::Vector3d c(&z.mesh_vert[3 * z.mesh_face[3 * f + 2]]);
    volume += a.dot(b.cross(c)) / 6;
  }
  EXPECT_NEAR(volume, kTetraEdges.prod() / 6, kSingle * volume);
  EXPECT_NEAR(z.body_mass[1], kRho * kTetraEdges.prod() / 6, kDouble * z.body_mass[1]);
}

// ---------------------------------------------------------------------------------------------
// against MuJoCo 2.2.2

// every body of a model whose bodies hang from the world, its mesh geoms and their hulls
class MeshVsMujoco {
 public:
  MeshVsMujoco(const std::string& xml, const std::string& name) : name_(name) {
    const fs::path file = dir() / (name + ".xml");
    write_text(file, xml);
    zwang::LoadResult loaded = zwang::load_mjcf(file, kMujoco2);
    z_ = std::move(loaded.model);
    z_.disableflags |= kDisableConstraint;
    std::string error;
    m_ = load_mujoco(file, &error);
    EXPECT_TRUE(m_) << error;
  }

  void compare() {
    ASSERT_TRUE(m_);
    const mjModel* m = m_.get();
    ASSERT_NO_FATAL_FAILURE(expect_same_tree(z_, m));
    Comparison cmp(name_ + " (compiled)");
    for (int b = 1; b < z_.nbody; ++b) {
      const std::array<double, 1> mass{z_.body_mass[b]};
      cmp.check("body_mass", b, mass, view(m->body_mass + b, 1), 1e-6);
      cmp.check("body_ipos", b, std::span(z_.body_ipos).subspan(3 * b, 3),
                view(m->body_ipos + 3 * b, 3), 1e-6);
      const double* q = m->body_iquat + 4 * b;
      const Eigen::Matrix3d r = Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
      const Eigen::Matrix3d mj =
          r * Eigen::Vector3d(m->body_inertia + 3 * b).asDiagonal() * r.transpose();
      const Eigen::Matrix3d zw = tensor(z_.body_inertia.data() + 6 * b);
      const double size = mj.norm();
      const Eigen::Matrix3d zs = zw / size, ms = mj / size;
      cmp.check("body_inertia", b, std::span(zs.data(), 9), std::span(ms.data(), 9), 1e-6);
    }
    // the same geoms in the same order, primitives fitted to the same sizes
    ASSERT_EQ(z_.ngeom, m->ngeom);
    for (int g = 0; g < z_.ngeom; ++g) {
      ASSERT_EQ(static_cast<int>(z_.geom_type[g]), m->geom_type[g]) << "geom " << g;
      cmp.check("geom_size", g, std::span(z_.geom_size).subspan(3 * g, 3),
                view(m->geom_size + 3 * g, 3), 1e-6);
      cmp.check("geom_rbound", g, std::span(z_.geom_rbound).subspan(g, 1),
                view(m->geom_rbound + g, 1), 1e-6);
      if (z_.geom_type[g] == GeomType::kMesh) {
        check_hull(g);
        continue;
      }
      // a primitive fitted to a mesh lies along the principal axes, each up to its sign: the
      // columns of the two rotations agree up to sign
      cmp.check("geom_pos", g, std::span(z_.geom_pos).subspan(3 * g, 3),
                view(m->geom_pos + 3 * g, 3), 1e-6);
      const double* zq = z_.geom_quat.data() + 4 * g;
      const double* mq = m->geom_quat + 4 * g;
      const Eigen::Matrix3d rz = Eigen::Quaterniond(zq[0], zq[1], zq[2], zq[3]).toRotationMatrix();
      const Eigen::Matrix3d rm = Eigen::Quaterniond(mq[0], mq[1], mq[2], mq[3]).toRotationMatrix();
      const Eigen::Matrix3d agree = (rz.transpose() * rm).cwiseAbs();
      cmp.check("geom_axes", g, std::span(agree.data(), 9),
                std::span(Eigen::Matrix3d::Identity().eval().data(), 9), 1e-6);
    }
  }

  // M and the bias forces at random states
  void compare_dynamics() {
    ASSERT_TRUE(m_);
    const mjModel* m = m_.get();
    const MjDataPtr d(mj_makeData(m));
    const std::vector<State> states = random_states(z_, 5, 21);
    const auto sim = simulator(z_, states);
    sim->forward();
    const int nv = m->nv;
    std::vector<double> dense(static_cast<std::size_t>(nv) * nv);
    Comparison cmp(name_);
    for (int s = 0; s < 5; ++s) {
      set_state(m, d.get(), states[s]);
      mj_forward(m, d.get());
      mj_fullM(m, dense.data(), d->qM);
      cmp.check("qM", s, unpack(sim->batch().qM().get(s), nv), dense, 1e-6);
      cmp.check("qfrc_bias", s, sim->batch().qfrc_bias().get(s), view(d->qfrc_bias, nv), 1e-6);
    }
  }

  const Model& model() const { return z_; }

 private:
  // the hull's vertices placed in the world at qpos0 (every body a child of the world) are
  // MuJoCo's hull vertices placed by its geom frame: the frames agree up to the principal axes'
  // signs, the vertices with them
  void check_hull(int g) {
    const mjModel* m = m_.get();
    const int mesh = m->geom_dataid[g];
    // MuJoCo makes hulls for the meshes of colliding geoms only
    if (m->mesh_graphadr[mesh] < 0) return;
    const int* graph = m->mesh_graph + m->mesh_graphadr[mesh];
    const int numvert = graph[0], numface = graph[1];
    const int zm = z_.geom_dataid[g];
    ASSERT_EQ(z_.mesh_vertnum[zm], numvert) << "geom " << g;
    ASSERT_EQ(z_.mesh_facenum[zm], numface) << "geom " << g;
    auto pose = [](const double* bpos, const double* bquat, const double* gpos,
                   const double* gquat) {
      const Eigen::Quaterniond qb(bquat[0], bquat[1], bquat[2], bquat[3]);
      const Eigen::Quaterniond qg(gquat[0], gquat[1], gquat[2], gquat[3]);
      const Eigen::Vector3d p =
          Eigen::Map<const Eigen::Vector3d>(bpos) + qb * Eigen::Map<const Eigen::Vector3d>(gpos);
      return std::pair(p, (qb * qg).normalized());
    };
    const int b = z_.geom_bodyid[g];
    const auto [zp, zq] =
        pose(&z_.body_pos[3 * b], &z_.body_quat[4 * b], &z_.geom_pos[3 * g], &z_.geom_quat[4 * g]);
    const auto [mp, mq] =
        pose(m->body_pos + 3 * b, m->body_quat + 4 * b, m->geom_pos + 3 * g, m->geom_quat + 4 * g);
    std::vector<Eigen::Vector3d> mujoco;
    for (int i = 0; i < numvert; ++i) {
      const float* v = m->mesh_vert + 3 * (m->mesh_vertadr[mesh] + graph[2 + numvert + i]);
      mujoco.push_back(mp + mq * Eigen::Vector3d(v[0], v[1], v[2]));
    }
    double scale = 0;
    for (const auto& v : mujoco) scale = std::max(scale, (v - mp).norm());
    for (int i = 0; i < numvert; ++i) {
      const Eigen::Vector3d v =
          zp + zq * Eigen::Vector3d(&z_.mesh_vert[3 * (z_.mesh_vertadr[zm] + i)]);
      double nearest = std::numeric_limits<double>::infinity();
      for (const auto& w : mujoco) nearest = std::min(nearest, (v - w).norm());
      EXPECT_LE(nearest, 1e-6 * scale) << name_ << " geom " << g << " hull vertex " << i;
    }
  }

  std::string name_;
  Model z_;
  MjModelPtr m_;
};

// a body per case, each on a free joint below the world
std::string bodies_model(const std::string& compiler, const std::string& assets,
                         const std::vector<std::string>& geoms) {
  std::string xml =
      fmt::format("<mujoco>\n<compiler {}/>\n<asset>\n{}</asset>\n<worldbody>\n", compiler, assets);
  for (std::size_t i = 0; i < geoms.size(); ++i) {
    xml += fmt::format("<body name=\"b{}\" pos=\"{} 0 0\">\n<freejoint/>\n{}\n</body>\n", i, i,
                       geoms[i]);
  }
  return xml + "</worldbody>\n</mujoco>\n";
}

constexpr const char* kAssets =
    "<mesh name=\"box\" file=\"box.stl\"/>\n"
    "<mesh name=\"tetra\" file=\"tetra.obj\"/>\n"
    "<mesh name=\"tetra_stl\" file=\"tetra.stl\" scale=\"2 0.5 1.5\" refpos=\"0.25 -0.5 1\" "
    "refquat=\"1 2 -1 0.5\"/>\n"
    "<mesh name=\"mirrored\" file=\"tetra.obj\" scale=\"-1 1 1\"/>\n"
    "<mesh name=\"points\" vertex=\"0 0 0  0.5 0 0  0 0.25 0  0 0 0.125  0.1 0.05 0.02\"/>\n"
    "<mesh name=\"inline\" vertex=\"0 0 0  0.5 0 0  0 0.25 0  0 0 0.125\" "
    "face=\"0 2 1  0 1 3  0 3 2  1 2 3\"/>\n"
    "<mesh file=\"unnamed.obj\" class=\"big\"/>\n"
    "<mesh name=\"box_msh\" file=\"box.msh\" scale=\"1 -1 1\"/>\n"
    "<mesh name=\"tetra_msh\" file=\"tetra.MSH\" refpos=\"0.1 0 0\"/>\n";

std::vector<std::string> mujoco_cases() {
  return {
      "<geom type=\"mesh\" mesh=\"box\" pos=\"0.1 0.2 0.3\" euler=\"10 20 30\"/>",
      "<geom type=\"mesh\" mesh=\"tetra\" density=\"300\"/>",
      "<geom type=\"mesh\" mesh=\"tetra_stl\" quat=\"0 1 0 0\"/>",
      "<geom type=\"mesh\" mesh=\"mirrored\"/>",
      "<geom type=\"mesh\" mesh=\"points\"/>",
      "<geom type=\"mesh\" mesh=\"inline\" mass=\"2\"/>",
      "<geom type=\"mesh\" mesh=\"unnamed\" class=\"big\"/>",
      "<geom type=\"mesh\" mesh=\"tetra\"/><geom type=\"box\" size=\"0.1 0.2 0.3\" pos=\"0 0 1\"/>",
      // primitives fitted to a mesh's inertia box
      "<geom type=\"box\" mesh=\"tetra\"/>",
      "<geom type=\"sphere\" mesh=\"tetra\" fitscale=\"1.5\"/>",
      "<geom type=\"capsule\" mesh=\"tetra_stl\" pos=\"0 0 0.5\"/>",
      "<geom type=\"cylinder\" mesh=\"tetra\" euler=\"0 90 0\"/>",
      "<geom type=\"ellipsoid\" mesh=\"box\"/>",
      "<geom type=\"mesh\" mesh=\"box_msh\" euler=\"5 -10 15\"/>",
      "<geom type=\"mesh\" mesh=\"tetra_msh\" density=\"700\"/>",
  };
}

constexpr const char* kDefaults =
    "<default>\n<default class=\"big\"><mesh scale=\"2 2 2\"/><geom density=\"100\"/></default>\n"
    "</default>\n";

TEST(MeshVsMujoco, MassesFramesHullsAndDynamics) {
  std::string xml = bodies_model("", kAssets, mujoco_cases());
  xml.replace(xml.find("<asset>"), 0, kDefaults);
  MeshVsMujoco c(xml, "cases");
  c.compare();
  c.compare_dynamics();
}

TEST(MeshVsMujoco, ExactMeshInertia) {
  std::string xml = bodies_model("exactmeshinertia=\"true\"", kAssets, mujoco_cases());
  xml.replace(xml.find("<asset>"), 0, kDefaults);
  MeshVsMujoco c(xml, "exact");
  c.compare();
  c.compare_dynamics();
}

// meshdir, relative to the model's directory, and a body whose flat visual mesh carries no mass
TEST(MeshVsMujoco, MeshdirAndInertial) {
  MeshVsMujoco c(bodies_model("meshdir=\"sub\"",
                              "<mesh name=\"t\" file=\"tetra.obj\"/>\n"
                              "<mesh name=\"flat\" vertex=\"0 0 0  1 0 0  0 1 0  1 1 0\" "
                              "face=\"0 1 2  1 3 2\"/>\n",
                              {"<geom type=\"mesh\" mesh=\"t\"/>",
                               "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 2 3\"/>"
                               "<geom type=\"mesh\" mesh=\"flat\" contype=\"0\" conaffinity=\"0\"/>"
                               "<geom type=\"mesh\" mesh=\"t\"/>"}),
                 "meshdir");
  c.compare();
}

// the sample mug: its mesh geom is drawn only (contype 0), so no warning
TEST(MeshVsMujoco, MugLoadsWithoutWarnings) {
  const LoadResult r = load_mjcf("/usr/share/mujoco/model/mug/mug.xml", kMujoco2);
  EXPECT_EQ(r.warnings, std::vector<std::string>{});
  ASSERT_EQ(r.model.nmesh, 1);
  EXPECT_GT(r.model.mesh_vertnum[0], 100);
  r.model.validate();
}

// ---------------------------------------------------------------------------------------------
// paths, errors, warnings

TEST(MeshPaths, AssetdirStrippathAndAbsolute) {
  const Mass want = inertia_box(solid(the_tetrahedron(), kRho), kRho);
  expect_body(load(one_mesh_model("file=\"tetra.obj\"", "assetdir=\"sub\"")), 1, want, kSingle,
              "assetdir");
  expect_body(load(one_mesh_model("file=\"elsewhere/tetra.obj\"", "strippath=\"true\"")), 1, want,
              kSingle, "strippath");
  expect_body(load(one_mesh_model("file=\"tetra.obj\"",
                                  fmt::format("meshdir=\"{}\"", (dir() / "sub").string()))),
              1, want, kSingle, "absolute meshdir");
}

std::string load_error(const std::string& xml) {
  try {
    load_mjcf_string(xml, "w.xml", dir(), kMujoco2);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(MeshErrors, NameTheMeshTheFileAndTheLine) {
  const std::string missing = (dir() / "missing.stl").string();
  EXPECT_EQ(load_error(one_mesh_model("file=\"missing.stl\"")),
            fmt::format("w.xml:4: mesh 'm' (file '{}'): cannot open the file (No such file or "
                        "directory)",
                        missing));
  write_text(dir() / "garbage.stl", "this is not an STL file\n");
  EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"garbage.stl\"")),
                       fmt::format("w.xml:4: mesh 'm' (file '{}'): not a valid STL file",
                                   (dir() / "garbage.stl").string())));
  write_text(dir() / "empty.obj", "");
  EXPECT_TRUE(
      Contains(load_error(one_mesh_model("file=\"empty.obj\"")), "empty.obj'): the file is empty"));
  write_text(dir() / "bad_index.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
  EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"bad_index.obj\"")),
                       "bad_index.obj:4: face uses vertex 9, which the file does not have (it "
                       "has 3 vertices)"));
  write_text(dir() / "x.ply", "ply\n");
  EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"x.ply\"")), "w.xml:4: mesh 'm' (file '"));
  EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"x.ply\"")),
                       "unknown mesh file type '.ply' (STL, OBJ and MSH are supported)"));
  write_text(dir() / "short.msh", std::string(10, '\0'));
  EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"short.msh\"")),
                       "short.msh'): not a valid MSH file (10 bytes, shorter than its header"));
  {
    // a box whose file lost its last byte; one whose normals are not one per vertex
    const std::string box = read_binary(dir() / "box.msh");
    write_text(dir() / "cut.msh", box.substr(0, box.size() - 1));
    EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"cut.msh\"")),
                         fmt::format("not a valid MSH file ({} bytes where its counts give {})",
                                     box.size() - 1, box.size())));
    std::string normals = box;
    normals[4] = 3;
    write_text(dir() / "normals.msh", normals);
    EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"normals.msh\"")),
                         "not a valid MSH file (counts: 8 vertices, 3 normals"));
    std::string index = box;
    index[index.size() - 4] = 8;
    write_text(dir() / "index.msh", index);
    EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"index.msh\"")),
                         "triangle 11 uses vertex 8, which the file does not have"));
  }
  EXPECT_TRUE(Contains(load_error(one_mesh_model("vertex=\"0 0 0 1 0 0 0 1 0\"")),
                       "w.xml:4: mesh 'm': 'vertex' needs at least 4 vertices"));
  EXPECT_TRUE(
      Contains(load_error(one_mesh_model("vertex=\"0 0 0 1 0 0 0 1 0 0 0 1\" face=\"0 1 4\"")),
               "w.xml:4: mesh 'm': face 0 uses vertex 4, of 4 vertices"));
  EXPECT_TRUE(Contains(load_error(one_mesh_model("vertex=\"0 0 0 1 0 0 0 1 0 0 0 x\"")),
                       "w.xml:4: <mesh> attribute 'vertex': 'x' is not a finite number"));
  EXPECT_TRUE(
      Contains(load_error(one_mesh_model("file=\"tetra.obj\" vertex=\"0 0 0 1 0 0 0 1 0 0 0 1\"")),
               "has both a file and inline vertices"));
  EXPECT_TRUE(Contains(load_error(one_mesh_model("")), "w.xml:4: mesh 'm' has no vertices"));
  EXPECT_TRUE(Contains(load_error("<mujoco><asset><mesh file=\"tetra.obj\"/>\n<mesh name=\"tetra\" "
                                  "file=\"box.obj\"/></asset></mujoco>"),
                       "w.xml:2: mesh name 'tetra' is already used by the mesh at w.xml:1"));
  EXPECT_TRUE(
      Contains(load_error("<mujoco><worldbody><body>\n<geom type=\"mesh\"/></body></worldbody>"
                          "</mujoco>"),
               "w.xml:2: <geom> of type mesh needs the attribute 'mesh'"));
  EXPECT_TRUE(
      Contains(load_error("<mujoco><worldbody><body>\n<geom type=\"mesh\" mesh=\"nope\"/></body>"
                          "</worldbody></mujoco>"),
               "w.xml:2: <geom> names no mesh 'nope'"));
  EXPECT_TRUE(
      Contains(load_error(one_mesh_model("file=\"tetra.obj\"", "", "fromto=\"0 0 0 1 0 0\"")),
               "cannot have fromto"));
}

// a flat mesh: no hull where the geom can collide, no inertia where the body needs one
TEST(MeshErrors, DegenerateMeshes) {
  const std::string flat = "vertex=\"0 0 0  1 0 0  0 1 0  1 1 0\" face=\"0 1 2  1 3 2\"";
  EXPECT_TRUE(Contains(load_error(one_mesh_model(flat)),
                       "w.xml:4: mesh 'm': no convex hull (qhull: QH6154"));
  const std::string xml = one_mesh_model(flat, "", "contype=\"0\" conaffinity=\"0\"");
  EXPECT_EQ(load_error(xml),
            "w.xml:9: the body's inertia would come from this geom, but mesh 'm' (at w.xml:4) "
            "has no inertia: its volume is too small; give the body an <inertial>");
  // two faces running the same edge the same way
  write_text(dir() / "twisted.obj",
             "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 3 4\n"
             "f 1 4 3\nf 2 3 4\n");
  EXPECT_TRUE(Contains(load_error(one_mesh_model("file=\"twisted.obj\"")),
                       "its faces have inconsistent orientation"));
  EXPECT_TRUE(Contains(load_error(fmt::format("<mujoco><asset><mesh name=\"m\" {}/></asset>\n"
                                              "<worldbody><body><freejoint/><geom type=\"box\" "
                                              "mesh=\"m\"/></body></worldbody></mujoco>",
                                              flat)),
                       "w.xml:2: the geom cannot be fitted: mesh 'm' (at w.xml:1) has no inertia"));
  EXPECT_TRUE(
      Contains(load_error("<mujoco><asset><mesh name=\"m\" file=\"tetra.obj\"/></asset>\n"
                          "<worldbody><geom type=\"plane\" mesh=\"m\"/></worldbody></mujoco>"),
               "w.xml:2: a plane geom cannot be fitted to mesh 'm'"));
  // MuJoCo 3's inertia attribute refuses the mesh itself
  EXPECT_TRUE(Contains(load_error(one_mesh_model(flat + " inertia=\"exact\"", "",
                                                 "contype=\"0\" conaffinity=\"0\"")),
                       "w.xml:4: mesh 'm': its volume is too small"));
}

// a mesh geom collides with a plane and a box: no warning
TEST(MeshWarnings, CollidingMeshGeomsNeedNoWarning) {
  const LoadResult r = load_mjcf_string(
      "<mujoco>\n<asset><mesh name=\"t\" file=\"tetra.obj\"/></asset>\n<worldbody>\n"
      "<geom name=\"floor\" type=\"plane\" size=\"1 1 1\"/>\n"
      "<geom name=\"table\" type=\"box\" size=\"1 1 0.1\"/>\n<body>\n<freejoint/>\n"
      "<geom name=\"hull\" type=\"mesh\" mesh=\"t\"/>\n</body>\n</worldbody>\n</mujoco>\n",
      "w.xml", dir(), kMujoco2);
  EXPECT_TRUE(r.warnings.empty()) << r.warnings.front();
}

// URDF meshes are visual data: the inertia comes from <inertial>, collision is not simulated
TEST(MeshUrdf, MeshGeometryIsAccepted) {
  const LoadResult r = load_urdf_string(
      "<robot name=\"r\">\n<link name=\"base\">\n"
      "<inertial><mass value=\"2\"/><inertia ixx=\"1\" iyy=\"1\" izz=\"1\" ixy=\"0\" "
      "ixz=\"0\" iyz=\"0\"/></inertial>\n"
      "<visual><geometry><mesh filename=\"package://r/meshes/base.dae\" scale=\"0.001 0.001 "
      "0.001\"/></geometry></visual>\n"
      "<collision><geometry><mesh filename=\"meshes/base.stl\"/></geometry></collision>\n"
      "</link>\n</robot>\n");
  EXPECT_EQ(r.model.nbody, 2);
  EXPECT_EQ(r.model.body_mass[1], 2);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_TRUE(Contains(r.warnings[0], "<collision> ignored")) << r.warnings[0];
}

}  // namespace
}  // namespace zwang::test
