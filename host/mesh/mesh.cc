// Mesh files, convex hulls and MuJoCo's mesh inertia.  The processing follows mjCMesh::Process
// step by step, in the same precision (MuJoCo 2.2.2 keeps vertices in float throughout, MuJoCo 3
// works in double), so that the results agree with MuJoCo's to rounding.
#include "host/mesh/mesh.hpp"

#include <assimp/scene.h>
#include <fmt/format.h>
#include <tiny_obj_loader.h>

#include <Eigen/Eigenvalues>
#include <Eigen/Geometry>
#include <algorithm>
#include <assimp/Importer.hpp>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <numbers>
#include <set>
#include <utility>

#include "host/load/model_file.hpp"

extern "C" {
#include <libqhull_r/qhull_ra.h>
}

namespace zwang::mesh {
namespace {

// MuJoCo's mjMINVAL
constexpr double kMinVal = 1e-15;

void check_finite(std::span<const float> vert) {
  for (float v : vert) {
    if (!std::isfinite(v)) throw ModelError("a vertex coordinate is not finite");
  }
}

// binary or ASCII STL: three vertices of its own per triangle, as MuJoCo reads them
Triangles read_stl(const std::string& data, bool mirror, const std::string& name) {
  Assimp::Importer importer;
  const aiScene* scene = importer.ReadFileFromMemory(data.data(), data.size(), 0, "stl");
  if (scene == nullptr) {
    // assimp names the memory buffer by a made-up file name: the file's own instead
    std::string why = importer.GetErrorString();
    const std::string made_up = "$$$___magic___$$$.stl";
    for (std::size_t at = why.find(made_up); at != std::string::npos; at = why.find(made_up)) {
      why.replace(at, made_up.size(), name);
    }
    while (!why.empty() &&
           (why.back() == '.' || std::isspace(static_cast<unsigned char>(why.back())))) {
      why.pop_back();
    }
    throw ModelError(fmt::format("not a valid STL file ({})", why));
  }
  Triangles t;
  for (unsigned m = 0; m < scene->mNumMeshes; ++m) {
    const aiMesh& mesh = *scene->mMeshes[m];
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;
      const int first = static_cast<int>(t.vert.size() / 3);
      for (unsigned k = 0; k < 3; ++k) {
        const aiVector3D& v = mesh.mVertices[face.mIndices[k]];
        t.vert.insert(t.vert.end(), {v.x, v.y, v.z});
      }
      t.face.insert(t.face.end(), {first, first + (mirror ? 2 : 1), first + (mirror ? 1 : 2)});
    }
  }
  if (t.face.empty()) throw ModelError("the STL file has no triangles");
  check_finite(t.vert);
  return t;
}

// The number tinyobjloader reads from a token: the longest decimal prefix
// [+-]? (d+ (. d*)? | . d+) ([eE] [+-]? d+)?, the rest of the token ignored ("1.0f" is 1); false
// where there is none ('nan', 'inf', a word: it reads 0) or the number is not finite
bool obj_number(std::string_view token, double& value) {
  std::size_t at = 0;
  const auto digits = [&] {
    const std::size_t from = at;
    while (at < token.size() && std::isdigit(static_cast<unsigned char>(token[at]))) ++at;
    return at > from;
  };
  if (at < token.size() && (token[at] == '+' || token[at] == '-')) ++at;
  const std::size_t mantissa = at;
  bool any = digits();
  if (at < token.size() && token[at] == '.') {
    ++at;
    any = digits() || any;
  }
  if (!any) return false;
  if (at < token.size() && (token[at] == 'e' || token[at] == 'E')) {
    const std::size_t mark = at++;
    if (at < token.size() && (token[at] == '+' || token[at] == '-')) ++at;
    if (!digits()) at = mark;
  }
  // from_chars takes no leading '+'
  const std::size_t begin = token[0] == '+' ? mantissa : 0;
  const auto [ptr, ec] = std::from_chars(token.data() + begin, token.data() + at, value);
  return ec == std::errc() && std::isfinite(value);
}

// What tinyobjloader would read silently as something else, refused with the file and line: a
// vertex coordinate that is not a finite number (it reads 'nan', 'inf' or a word as 0), and a
// face's vertex number past the file's vertices or past 64 bits (it wraps it to an int)
void check_obj_text(const std::string& data, const std::string& name) {
  const auto tokens = [](std::string_view line) {
    std::vector<std::string_view> out;
    std::size_t at = 0;
    while (true) {
      at = line.find_first_not_of(" \t\r", at);
      if (at == std::string_view::npos) break;
      const std::size_t end = std::min(line.find_first_of(" \t\r", at), line.size());
      out.push_back(line.substr(at, end - at));
      at = end;
    }
    return out;
  };
  // pass 1: the vertices; pass 2: the faces' vertex numbers (1-based, or negative from the end)
  std::int64_t nvert = 0;
  for (int pass = 0; pass < 2; ++pass) {
    std::size_t start = 0;
    for (int line = 1; start < data.size(); ++line) {
      const std::size_t end = std::min(data.find('\n', start), data.size());
      // a comment runs to the end of the line
      const std::string_view text = std::string_view(data).substr(start, end - start);
      const std::vector<std::string_view> t = tokens(text.substr(0, text.find('#')));
      start = end + 1;
      if (t.empty() || t[0] != (pass == 0 ? "v" : "f")) continue;
      if (pass == 0) ++nvert;
      for (std::size_t k = 1; k < t.size(); ++k) {
        if (pass == 0) {
          double x = 0;
          if (!obj_number(t[k], x)) {
            throw ModelError(fmt::format("{}:{}: vertex coordinate '{}' is not a finite number",
                                         name, line, t[k]));
          }
          continue;
        }
        // v, v/vt, v/vt/vn or v//vn: the vertex number is the first
        const std::string_view v = t[k].substr(0, t[k].find('/'));
        std::int64_t index = 0;
        const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), index);
        if (ec == std::errc::result_out_of_range ||
            (ec == std::errc() && (index == 0 || index > nvert || index < -nvert))) {
          throw ModelError(
              fmt::format("{}:{}: face uses vertex {}, which the file does not have "
                          "(it has {} vertices)",
                          name, line, v, nvert));
        }
      }
    }
  }
}

// OBJ: polygons triangulated by tinyobjloader; the first object's triangles over the vertices
// they use, or every vertex when the file has no face
Triangles read_obj(const std::string& data, bool mirror, const std::string& name) {
  check_obj_text(data, name);
  tinyobj::ObjReader reader;
  tinyobj::ObjReaderConfig config;
  config.vertex_color = false;
  if (!reader.ParseFromString(data, "", config)) {
    std::string error = reader.Error();
    while (!error.empty() && std::isspace(static_cast<unsigned char>(error.back()))) {
      error.pop_back();
    }
    throw ModelError(fmt::format("not a valid OBJ file ({})", error));
  }
  const std::vector<tinyobj::real_t>& all = reader.GetAttrib().vertices;
  const int nvert = static_cast<int>(all.size() / 3);
  Triangles t;
  if (reader.GetShapes().empty()) {
    t.vert.assign(all.begin(), all.begin() + 3 * nvert);
    check_finite(t.vert);
    return t;
  }
  const tinyobj::mesh_t& mesh = reader.GetShapes()[0].mesh;
  std::vector<int> file_face;  // triangles by the file's vertex numbers
  std::size_t at = 0;
  for (std::size_t f = 0; f < mesh.num_face_vertices.size(); ++f) {
    const int n = mesh.num_face_vertices[f];
    for (int k = 1; k + 1 < n; ++k) {
      for (int c : {0, k, k + 1}) {
        const int index = mesh.indices[at + c].vertex_index;
        if (index < 0 || index >= nvert) {
          throw ModelError(fmt::format("face {} uses vertex {}, which the file does not have",
                                       f + 1, index + 1));
        }
        file_face.push_back(index);
      }
    }
    at += n;
  }
  t.consistent = consistent_orientation(file_face);
  std::vector<int> local(nvert, -1);
  for (std::size_t i = 0; i < file_face.size(); ++i) {
    int& id = local[file_face[i]];
    if (id < 0) {
      id = static_cast<int>(t.vert.size() / 3);
      t.vert.insert(t.vert.end(), all.begin() + 3 * file_face[i],
                    all.begin() + 3 * file_face[i] + 3);
    }
    t.face.push_back(id);
  }
  if (mirror) {
    for (std::size_t i = 0; i < t.face.size(); i += 3) std::swap(t.face[i + 1], t.face[i + 2]);
  }
  check_finite(t.vert);
  return t;
}

// MuJoCo's binary MSH: four int32 counts (vertices, normals, texture coordinates, triangles),
// then the vertices (float32 x y z), normals (3 floats), texture coordinates (2 floats) and
// triangles (three int32 vertex indices), nothing else; normals and texture coordinates, which
// only drawing uses, number 0 or one per vertex.  Without triangles, the vertices alone.
Triangles read_msh(const std::string& data, bool mirror) {
  std::int32_t count[4];
  if (data.size() < sizeof(count)) {
    throw ModelError(
        fmt::format("not a valid MSH file ({} bytes, shorter than its header of 16)", data.size()));
  }
  std::memcpy(count, data.data(), sizeof(count));
  const std::int64_t nvert = count[0], nnormal = count[1], ntex = count[2], nface = count[3];
  if (nvert < 1 || nnormal < 0 || ntex < 0 || nface < 0 || (nnormal != 0 && nnormal != nvert) ||
      (ntex != 0 && ntex != nvert)) {
    throw ModelError(
        fmt::format("not a valid MSH file (counts: {} vertices, {} normals, {} "
                    "texture coordinates, {} triangles; normals and texture "
                    "coordinates are 0 or one per vertex)",
                    nvert, nnormal, ntex, nface));
  }
  const std::int64_t expected = 16 + 4 * (3 * nvert + 3 * nnormal + 2 * ntex) + 4 * 3 * nface;
  if (static_cast<std::int64_t>(data.size()) != expected) {
    throw ModelError(fmt::format("not a valid MSH file ({} bytes where its counts give {})",
                                 data.size(), expected));
  }
  Triangles t;
  t.vert.resize(3 * nvert);
  std::memcpy(t.vert.data(), data.data() + 16, 12 * nvert);
  check_finite(t.vert);
  if (nface == 0) return t;
  t.face.resize(3 * nface);
  std::memcpy(t.face.data(), data.data() + 16 + 4 * (3 * nvert + 3 * nnormal + 2 * ntex),
              12 * nface);
  for (std::int64_t i = 0; i < 3 * nface; ++i) {
    if (t.face[i] < 0 || t.face[i] >= nvert) {
      throw ModelError(
          fmt::format("triangle {} uses vertex {}, which the file does not have "
                      "(it has {}, numbered from 0)",
                      i / 3, t.face[i], nvert));
    }
  }
  t.consistent = consistent_orientation(t.face);
  if (mirror) {
    for (std::size_t i = 0; i < t.face.size(); i += 3) std::swap(t.face[i + 1], t.face[i + 2]);
  }
  return t;
}

// the rotation matrix of a quaternion, normalised first
Eigen::Matrix3d rotation(const Quatd& q) {
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).normalized().toRotationMatrix();
}

// area, unit normal (n = (b − a) × (c − a) / |·|) and centroid of a triangle, in the vertices'
// precision as MuJoCo; degenerate triangles have no area
template <class T>
double triangle(const T* a, const T* b, const T* c, double* normal, double* center) {
  if (center != nullptr) {
    for (int i = 0; i < 3; ++i) center[i] = (a[i] + b[i] + c[i]) / 3;
  }
  const double e1[3] = {b[0] - a[0], b[1] - a[1], b[2] - a[2]};
  const double e2[3] = {c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  normal[0] = e1[1] * e2[2] - e1[2] * e2[1];
  normal[1] = e1[2] * e2[0] - e1[0] * e2[2];
  normal[2] = e1[0] * e2[1] - e1[1] * e2[0];
  const double len =
      std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
  if (len < kMinVal) return 0;
  for (int i = 0; i < 3; ++i) normal[i] /= len;
  return len / 2;
}

bool is_222(Inertia i) {
  return i == Inertia::kVolume222 || i == Inertia::kVolumeExact222;
}

// principal moments in decreasing order and the rotation whose columns are their axes (each
// axis with its largest component positive, then made right-handed)
struct Principal {
  std::array<double, 3> value;
  Quatd quat;
};

Principal principal(const std::array<double, 6>& inert) {
  Eigen::Matrix3d m;
  m << inert[0], inert[3], inert[4], inert[3], inert[1], inert[5], inert[4], inert[5], inert[2];
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(m);
  Principal p;
  Eigen::Matrix3d axes;
  for (int k = 0; k < 3; ++k) {
    p.value[k] = eig.eigenvalues()(2 - k);
    Eigen::Vector3d a = eig.eigenvectors().col(2 - k);
    Eigen::Index big = 0;
    a.cwiseAbs().maxCoeff(&big);
    if (a(big) < 0) a = -a;
    axes.col(k) = a;
  }
  if (axes.determinant() < 0) axes.col(2) = -axes.col(2);
  Eigen::Quaterniond q(axes);
  q.normalize();
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  p.quat = {q.w(), q.x(), q.y(), q.z()};
  return p;
}

// v ← v/|v| unless |v| is within 1e-14 of 1; nothing when |v|² < 1e-14 (mjuu_normvec)
void normalize_q(double q[4]) {
  const double n2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
  if (n2 < 1e-14) return;
  const double n = std::sqrt(n2);
  if (std::abs(n - 1) > 1e-14) {
    for (int i = 0; i < 4; ++i) q[i] /= n;
  }
}

// a ← a ⊗ b, normalised as above
void mul_q(double a[4], const double b[4]) {
  double r[4] = {a[0] * b[0] - a[1] * b[1] - a[2] * b[2] - a[3] * b[3],
                 a[0] * b[1] + a[1] * b[0] + a[2] * b[3] - a[3] * b[2],
                 a[0] * b[2] - a[1] * b[3] + a[2] * b[0] + a[3] * b[1],
                 a[0] * b[3] + a[1] * b[2] - a[2] * b[1] + a[3] * b[0]};
  normalize_q(r);
  for (int i = 0; i < 4; ++i) a[i] = r[i];
}

// the rotation matrix of a unit quaternion, row-major, in MuJoCo's arithmetic (the identity
// exactly for the identity)
std::array<double, 9> matrix_q(const double q[4]) {
  if (q[0] == 1 && q[1] == 0 && q[2] == 0 && q[3] == 0) return {1, 0, 0, 0, 1, 0, 0, 0, 1};
  const double q00 = q[0] * q[0], q01 = q[0] * q[1], q02 = q[0] * q[2], q03 = q[0] * q[3];
  const double q11 = q[1] * q[1], q12 = q[1] * q[2], q13 = q[1] * q[3];
  const double q22 = q[2] * q[2], q23 = q[2] * q[3], q33 = q[3] * q[3];
  return {q00 + q11 - q22 - q33, 2 * (q12 - q03),       2 * (q13 + q02),
          2 * (q12 + q03),       q00 - q11 + q22 - q33, 2 * (q23 - q01),
          2 * (q13 - q02),       2 * (q23 + q01),       q00 - q11 - q22 + q33};
}

// MuJoCo 3's and 4's principal axes of an inertia M (mjuu_eig3): Jacobi rotations accumulated in
// a unit quaternion q.  Each step takes D = R(q)ᵀ M R(q), its largest off-diagonal element D_rc
// and the turn about the third axis that zeroes it (τ = (D_cc − D_rr) / 2D_rc,
// t = sgn τ / (|τ| + √(1 + τ²)), cos = 1/√(1 + t²)), until |D_rc| < 1e-12 or the cosine is
// within 1e-12 of 1 (at most 500 steps); then the moments are sorted decreasing by quarter
// turns.  It stops up to ~1e-6 rad short of the exact axes where two moments nearly coincide,
// so a mesh's frame, and its vertices in it, are MuJoCo's only in its own arithmetic.
Principal principal_jacobi(const std::array<double, 6>& inert) {
  constexpr double kEps = 1e-12;
  const double m[9] = {inert[0], inert[3], inert[4], inert[3], inert[1],
                       inert[5], inert[4], inert[5], inert[2]};
  double q[4] = {1, 0, 0, 0}, value[3] = {0, 0, 0};
  for (int iter = 0; iter < 500; ++iter) {
    // D = Rᵀ M R, as (Rᵀ M) R
    const std::array<double, 9> r = matrix_q(q);
    double rm[9], d[9];
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        rm[3 * i + j] = r[i] * m[j] + r[3 + i] * m[3 + j] + r[6 + i] * m[6 + j];
      }
    }
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) {
        d[3 * i + j] = rm[3 * i] * r[j] + rm[3 * i + 1] * r[3 + j] + rm[3 * i + 2] * r[6 + j];
      }
    }
    value[0] = d[0];
    value[1] = d[4];
    value[2] = d[8];
    // the largest off-diagonal element (r, c) and the axis a of the turn
    int row = 1, col = 2, axis = 0;
    if (std::abs(d[1]) > std::abs(d[2]) && std::abs(d[1]) > std::abs(d[5])) {
      row = 0;
      col = 1;
      axis = 2;
    } else if (std::abs(d[2]) > std::abs(d[5])) {
      row = 0;
      col = 2;
      axis = 1;
    }
    const double off = d[3 * row + col];
    if (std::abs(off) < kEps) break;
    const double tau = (d[4 * col] - d[4 * row]) / (2 * off);
    const double t = tau >= 0 ? 1.0 / (tau + std::sqrt(1 + tau * tau))
                              : -1.0 / (-tau + std::sqrt(1 + tau * tau));
    const double c = 1.0 / std::sqrt(1 + t * t);
    if (c > 1.0 - kEps) break;
    double turn[4] = {0, 0, 0, 0};
    const double half = std::sqrt(0.5 - 0.5 * c);
    turn[axis + 1] = tau >= 0 ? -half : half;
    if (axis == 1) turn[axis + 1] = -turn[axis + 1];
    turn[0] = std::sqrt(1.0 - turn[axis + 1] * turn[axis + 1]);
    normalize_q(turn);
    mul_q(q, turn);
    normalize_q(q);
  }
  // moments 0, 1 then 1, 2 then 0, 1 swapped where out of order, a quarter turn each
  for (int j = 0; j < 3; ++j) {
    const int lead = j % 2;
    if (value[lead] + kEps < value[lead + 1]) {
      std::swap(value[lead], value[lead + 1]);
      double turn[4] = {0.707106781186548, 0, 0, 0};
      turn[(lead + 2) % 3 + 1] = turn[0];
      mul_q(q, turn);
      normalize_q(q);
    }
  }
  return {{value[0], value[1], value[2]}, {q[0], q[1], q[2], q[3]}};
}

// the mass distribution of one pass: about the origin of the vertices given
struct Moments {
  double total = 0;               // volume or area
  std::array<double, 6> inert{};  // xx yy zz xy xz yz, density included where `weight` has it
};

// Σ over triangles D E F of the tetrahedra (origin, D, E, F) or, for a shell, of the triangles:
// P_ij += w V/C (2 Σ_v v_i v_j + Σ_{u≠v} u_i v_j), C = 20 (solid) or 12 (shell), then
// I = (P_yy + P_zz, P_xx + P_zz, P_xx + P_yy, −P_xy, −P_xz, −P_yz)
template <class T>
Moments moments(const std::vector<T>& v, std::span<const int> face, bool shell, bool positive,
                double weight) {
  constexpr int k[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {0, 2}, {1, 2}};
  double p[6] = {0, 0, 0, 0, 0, 0};
  Moments out;
  for (std::size_t f = 0; f < face.size(); f += 3) {
    const T* d = v.data() + 3 * face[f];
    const T* e = v.data() + 3 * face[f + 1];
    const T* g = v.data() + 3 * face[f + 2];
    double normal[3], center[3];
    const double area = triangle(d, e, g, normal, center);
    double vol =
        shell ? area
              : (center[0] * normal[0] + center[1] * normal[1] + center[2] * normal[2]) * area / 3;
    if (positive) vol = std::abs(vol);
    out.total += vol;
    for (int j = 0; j < 6; ++j) {
      const int a = k[j][0], b = k[j][1];
      const T sum = 2 * (d[a] * d[b] + e[a] * e[b] + g[a] * g[b]) + d[a] * e[b] + d[b] * e[a] +
                    d[a] * g[b] + d[b] * g[a] + e[a] * g[b] + e[b] * g[a];
      p[j] += weight * vol / (shell ? 12 : 20) * sum;
    }
  }
  out.inert = {p[1] + p[2], p[0] + p[2], p[0] + p[1], -p[3], -p[4], -p[5]};
  return out;
}

// the frame of a set of moments: principal axes, and the box half-sizes
// b_k = ½ √(6 (Σ_j λ_j − 2 λ_k) / m) for the mass m that the moments carry; a defect when the
// moments are not those of a body
Defect frame_of(const Moments& mo, double mass, bool tolerant, Frame& frame) {
  bool finite = std::isfinite(mass);
  for (const double x : mo.inert) finite = finite && std::isfinite(x);
  if (!finite) return Defect::kOverflow;
  const Principal pr = tolerant ? principal_jacobi(mo.inert) : principal(mo.inert);
  const auto& e = pr.value;
  if (!(e[2] > 0)) return Defect::kEigenvalue;
  // MuJoCo 3 allows rounding in the triangle inequality A + B ≥ C
  const double rtol = tolerant ? 1e-6 : 0, atol = tolerant ? 1e-9 : 0;
  for (int i = 0; i < 3; ++i) {
    const double c = e[i], ab = e[(i + 1) % 3] + e[(i + 2) % 3];
    if (ab < c * (1 - rtol) - atol) return Defect::kInequality;
  }
  frame.quat = pr.quat;
  frame.box = {std::sqrt(6 * (e[1] + e[2] - e[0]) / mass) / 2,
               std::sqrt(6 * (e[0] + e[2] - e[1]) / mass) / 2,
               std::sqrt(6 * (e[0] + e[1] - e[2]) / mass) / 2};
  return Defect::kNone;
}

template <class T>
Processed run(std::vector<T> v, const Triangles& t, const Placement& pl, Inertia type,
              double density, const Hull* hull) {
  const std::size_t n = v.size() / 3;
  const bool mj222 = is_222(type);
  Processed out;
  auto finish = [&](Defect d) {
    out.vert.assign(v.begin(), v.end());
    out.defect = d;
    // MuJoCo 2.2.2 checks the orientation first; MuJoCo 3 only for exact inertia
    if (!t.consistent && (mj222 || type == Inertia::kExact)) out.defect = Defect::kOrientation;
    return out;
  };

  // placement: translate, rotate by refquat⁻¹, scale
  if (pl.refpos[0] != 0 || pl.refpos[1] != 0 || pl.refpos[2] != 0) {
    const T rp[3] = {static_cast<T>(pl.refpos[0]), static_cast<T>(pl.refpos[1]),
                     static_cast<T>(pl.refpos[2])};
    for (std::size_t i = 0; i < n; ++i) {
      for (int j = 0; j < 3; ++j) v[3 * i + j] -= rp[j];
    }
  }
  if (pl.refquat[0] != 1 || pl.refquat[1] != 0 || pl.refquat[2] != 0 || pl.refquat[3] != 0) {
    const Eigen::Matrix3d r = rotation(pl.refquat);
    for (std::size_t i = 0; i < n; ++i) {
      const Eigen::Vector3d p(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
      const Eigen::Vector3d q = r.transpose() * p;
      for (int j = 0; j < 3; ++j) v[3 * i + j] = static_cast<T>(q(j));
    }
  }
  if (pl.scale[0] != 1 || pl.scale[1] != 1 || pl.scale[2] != 1) {
    for (std::size_t i = 0; i < n; ++i) {
      for (int j = 0; j < 3; ++j) v[3 * i + j] = static_cast<T>(v[3 * i + j] * pl.scale[j]);
    }
  }
  for (const T x : v) {
    if (!std::isfinite(x)) return finish(Defect::kOverflow);
  }

  // the area-weighted centroid of the faces: the apex of the first pass's tetrahedra
  double facecen[3] = {0, 0, 0}, area = 0;
  for (std::size_t f = 0; f < t.face.size(); f += 3) {
    double normal[3], center[3];
    const double a =
        triangle(&v[3 * t.face[f]], &v[3 * t.face[f + 1]], &v[3 * t.face[f + 2]], normal, center);
    for (int j = 0; j < 3; ++j) facecen[j] += a * center[j];
    area += a;
  }
  if (!std::isfinite(area)) return finish(Defect::kOverflow);
  if (area < kMinVal) return finish(Defect::kArea);
  for (double& c : facecen) c /= area;

  // centre of mass: Σ V_t (¾ c_t + ¼ apex) / Σ V_t over the tetrahedra (apex, D, E, F), or the
  // triangles for a shell
  const bool shell = type == Inertia::kShell;
  const bool positive = type == Inertia::kVolume222 || type == Inertia::kLegacy;
  const std::span<const int> faces =
      type == Inertia::kConvex ? std::span<const int>(hull->face) : std::span<const int>(t.face);
  double com[3] = {0, 0, 0}, total = 0;
  for (std::size_t f = 0; f < faces.size(); f += 3) {
    double normal[3], center[3];
    const double a =
        triangle(&v[3 * faces[f]], &v[3 * faces[f + 1]], &v[3 * faces[f + 2]], normal, center);
    const double d[3] = {center[0] - facecen[0], center[1] - facecen[1], center[2] - facecen[2]};
    double vol = shell ? a : (d[0] * normal[0] + d[1] * normal[1] + d[2] * normal[2]) * a / 3;
    if (positive) vol = std::abs(vol);
    total += vol;
    for (int j = 0; j < 3; ++j) com[j] += vol * (center[j] * 3.0 / 4.0 + facecen[j] / 4.0);
  }
  if (!std::isfinite(total)) return finish(Defect::kOverflow);
  if (total < kMinVal) {
    return finish(shell ? Defect::kArea : total < 0 ? Defect::kNegativeVolume : Defect::kVolume);
  }
  for (double& c : com) c /= total;
  out.volume.pos = {com[0], com[1], com[2]};

  // moments about the centre of mass, with the vertices moved there
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) v[3 * i + j] = static_cast<T>(v[3 * i + j] - com[j]);
  }
  const Moments mo = moments(v, faces, shell, positive, mj222 ? density : 1.0);
  out.volume.volume = mo.total;
  if (const Defect d = frame_of(mo, mj222 ? mo.total * density : mo.total, !mj222, out.volume);
      d != Defect::kNone) {
    return finish(d);
  }

  // into the principal frame: v ← Rᵀ v (MuJoCo 3's and 4's in their arithmetic)
  const Eigen::Matrix3d r = rotation(out.volume.quat);
  const double q[4] = {out.volume.quat[0], out.volume.quat[1], out.volume.quat[2],
                       out.volume.quat[3]};
  const std::array<double, 9> rq = matrix_q(q);
  for (std::size_t i = 0; i < n; ++i) {
    const double x = v[3 * i], y = v[3 * i + 1], z = v[3 * i + 2];
    const Eigen::Vector3d p = mj222 ? Eigen::Vector3d(r.transpose() * Eigen::Vector3d(x, y, z))
                                    : Eigen::Vector3d(rq[0] * x + rq[3] * y + rq[6] * z,
                                                      rq[1] * x + rq[4] * y + rq[7] * z,
                                                      rq[2] * x + rq[5] * y + rq[8] * z);
    for (int j = 0; j < 3; ++j) {
      v[3 * i + j] = static_cast<T>(p(j));
      out.aabb[j] = std::max(out.aabb[j], std::abs(static_cast<double>(v[3 * i + j])));
    }
  }
  if (!mj222) return finish(Defect::kNone);

  // the surface's own frame within the volume's, for a geom whose shell carries its mass: the
  // area centroid and the principal axes of the surface about it (MuJoCo 3's shell; MuJoCo
  // 2.2.2's places the centre at ¾ of the centroid, in axes whose signs its eigen-solver picks)
  double centroid[3] = {0, 0, 0}, surface = 0;
  for (std::size_t f = 0; f < t.face.size(); f += 3) {
    double normal[3], center[3];
    const double a =
        triangle(&v[3 * t.face[f]], &v[3 * t.face[f + 1]], &v[3 * t.face[f + 2]], normal, center);
    surface += a;
    for (int j = 0; j < 3; ++j) centroid[j] += a * center[j];
  }
  for (double& c : centroid) c /= surface;
  out.shell.pos = {centroid[0], centroid[1], centroid[2]};
  std::vector<double> about(v.begin(), v.end());
  for (std::size_t i = 0; i < n; ++i) {
    for (int j = 0; j < 3; ++j) about[3 * i + j] -= centroid[j];
  }
  const Moments sm = moments(about, t.face, true, false, 1.0);
  out.shell.volume = sm.total;
  return finish(frame_of(sm, sm.total, false, out.shell));
}

}  // namespace

std::string_view describe(Defect d) {
  // by Defect value
  constexpr std::string_view kDescriptions[] = {
      "",
      "its faces have inconsistent orientation (an edge runs the same way in two faces)",
      "its surface area is too small",
      "its volume is too small",
      "its volume is negative (triangles oriented inward)",
      "its inertia has a principal moment that is not positive",
      "its principal moments violate A + B ≥ C",
      "it is too large for its volume and inertia to be computed (they overflow; check its "
      "scale)",
  };
  const int i = static_cast<int>(d);
  return i >= 0 && i < static_cast<int>(std::size(kDescriptions)) ? kDescriptions[i] : "";
}

bool consistent_orientation(std::span<const int> face) {
  std::vector<std::pair<int, int>> edges;
  edges.reserve(face.size());
  for (std::size_t f = 0; f + 2 < face.size(); f += 3) {
    edges.emplace_back(face[f], face[f + 1]);
    edges.emplace_back(face[f + 1], face[f + 2]);
    edges.emplace_back(face[f + 2], face[f]);
  }
  std::sort(edges.begin(), edges.end());
  return std::adjacent_find(edges.begin(), edges.end()) == edges.end();
}

Triangles read_file(const std::filesystem::path& path, bool mirror) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ext != ".stl" && ext != ".obj" && ext != ".msh") {
    throw ModelError(
        fmt::format("unknown mesh file type '{}' (STL, OBJ and MSH are supported)", ext));
  }
  std::string data;
  try {
    data = read_model_file(path, "", kMaxMeshFileBytes);
  } catch (const ModelError& e) {
    // read_model_file's message starts with the name given, here empty: ": ..."
    throw ModelError(std::string(e.what()).substr(2));
  }
  if (data.empty()) throw ModelError("the file is empty");
  if (ext == ".msh") return read_msh(data, mirror);
  return ext == ".stl" ? read_stl(data, mirror, path.string())
                       : read_obj(data, mirror, path.string());
}

std::optional<Hull> convex_hull(std::span<const float> points, std::string* error) {
  const int n = static_cast<int>(points.size() / 3);
  if (n < 4) {
    *error = fmt::format("{} vertices span no volume", n);
    return std::nullopt;
  }
  std::vector<coordT> coords(points.begin(), points.begin() + 3 * n);
  // qhull's messages go to a memory stream, for the error
  char* text = nullptr;
  std::size_t text_size = 0;
  FILE* messages = open_memstream(&text, &text_size);
  qhT qh_qh;
  qhT* qh = &qh_qh;
  qh_zero(qh, messages);
  char options[] = "qhull Qt";
  const int code = qh_new_qhull(qh, 3, n, coords.data(), False, options, nullptr, messages);
  std::optional<Hull> hull;
  if (code == 0) {
    qh_triangulate(qh);
    hull.emplace();
    std::vector<char> on_hull(n, 0);
    facetT* facet;
    FORALLfacets {
      int id[3];
      int k = 0;
      vertexT *vertex, **vertexp;
      FOREACHvertex_(facet->vertices) {
        if (k < 3) id[k] = qh_pointid(qh, vertex->point);
        ++k;
      }
      if (k != 3) continue;
      // counter-clockwise about qhull's outward normal
      const float* a = &points[3 * id[0]];
      const float* b = &points[3 * id[1]];
      const float* c = &points[3 * id[2]];
      const double e1[3] = {double(b[0]) - a[0], double(b[1]) - a[1], double(b[2]) - a[2]};
      const double e2[3] = {double(c[0]) - a[0], double(c[1]) - a[1], double(c[2]) - a[2]};
      const double cross[3] = {e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2],
                               e1[0] * e2[1] - e1[1] * e2[0]};
      const double* nrm = facet->normal;
      if (cross[0] * nrm[0] + cross[1] * nrm[1] + cross[2] * nrm[2] < 0) std::swap(id[1], id[2]);
      for (int j : id) {
        hull->face.push_back(j);
        on_hull[j] = 1;
      }
    }
    for (int i = 0; i < n; ++i) {
      if (on_hull[i]) hull->vert.push_back(i);
    }
  }
  int curlong = 0, totlong = 0;
  qh_freeqhull(qh, !qh_ALL);
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(messages);
  if (!hull) {
    std::string message(text != nullptr ? text : "", text_size);
    // qhull's first line names the error (QH6154 ... initial simplex is flat, ...)
    const std::size_t end = message.find('\n');
    *error = fmt::format("qhull: {}", message.substr(0, end));
  }
  std::free(text);
  return hull;
}

Processed process(const Triangles& t, const Placement& p, Inertia inertia, double density,
                  const Hull* hull) {
  if (is_222(inertia)) return run(t.vert, t, p, inertia, density, hull);
  return run(std::vector<double>(t.vert.begin(), t.vert.end()), t, p, inertia, density, hull);
}

std::vector<std::vector<int>> hull_polygons(std::span<const double> vert,
                                            std::span<const int> face) {
  using Key = std::pair<double, double>;
  // per face: its directed edges (from, to), and for each of them whether it is still unused
  std::map<Key, std::vector<std::pair<int, int>>> edges;
  std::vector<Key> order;
  for (std::size_t f = 0; f + 2 < face.size(); f += 3) {
    const int i[3] = {face[f], face[f + 1], face[f + 2]};
    const Eigen::Vector3d a(&vert[3 * i[0]]), b(&vert[3 * i[1]]), c(&vert[3 * i[2]]);
    Eigen::Vector3d n = (b - a).cross(c - a);
    const double len = n.norm();
    if (len < 1e-15) continue;
    // + 0.0: −0 and +0 give the same angles
    n = n / len + Eigen::Vector3d::Zero();
    Key key{0.0, 0.0};
    if (std::abs(n.z()) > 1 - 1e-7) {
      key.second = n.z() < 0 ? std::round(std::numbers::pi / kPolygonAngle) : 0.0;
    } else {
      key = {std::round(std::atan2(n.y(), n.x()) / kPolygonAngle),
             std::round(std::acos(n.z()) / kPolygonAngle)};
    }
    auto [it, added] = edges.try_emplace(key);
    if (added) order.push_back(key);
    for (int k = 0; k < 3; ++k) it->second.emplace_back(i[k], i[(k + 1) % 3]);
  }
  std::vector<std::vector<int>> polygons;
  for (const Key& key : order) {
    // the boundary: the edges whose reverse is not in the face
    const std::vector<std::pair<int, int>>& all = edges[key];
    std::set<std::pair<int, int>> inner(all.begin(), all.end());
    std::vector<std::pair<int, int>> boundary;
    for (const auto& [from, to] : all) {
      if (inner.count({to, from}) == 0) boundary.emplace_back(from, to);
    }
    std::vector<char> used(boundary.size(), 0);
    for (std::size_t start = 0; start < boundary.size(); ++start) {
      if (used[start]) continue;
      used[start] = 1;
      std::vector<int> path{boundary[start].first};
      int next = boundary[start].second;
      while (next != path.front()) {
        path.push_back(next);
        std::size_t e = 0;
        while (e < boundary.size() && (used[e] || boundary[e].first != next)) ++e;
        if (e == boundary.size()) break;
        used[e] = 1;
        next = boundary[e].second;
      }
      if (next == path.front() && path.size() >= 3) polygons.push_back(std::move(path));
    }
  }
  return polygons;
}

}  // namespace zwang::mesh
