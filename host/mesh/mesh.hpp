// Triangle meshes for the loaders: STL files (binary or ASCII, read by assimp), OBJ files
// (tinyobjloader, MuJoCo's OBJ reader), convex hulls (qhull, as MuJoCo), and the centre of mass,
// principal axes and equivalent inertia box that MuJoCo derives from a mesh: mjCMesh::Process of
// MuJoCo 2.2.2 (with or without exactmeshinertia) and of MuJoCo 3 (the mesh's inertia attribute:
// legacy, exact, convex, shell).
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "zwang/model.hpp"

namespace zwang::mesh {

// a mesh file is at most this large, and the distinct mesh files of a model together this
inline constexpr std::uintmax_t kMaxMeshFileBytes = std::uintmax_t{64} << 20;
inline constexpr std::uintmax_t kMaxMeshBytes = std::uintmax_t{256} << 20;

// vertices and triangles as a file or an MJCF element gives them; MuJoCo keeps mesh vertices in
// single precision, and so does every step that follows it here
struct Triangles {
  std::vector<float> vert;  // x y z per vertex
  std::vector<int> face;    // three vertex indices per triangle, counter-clockwise from outside
  // no directed edge in two triangles; checked where the source numbers shared vertices (OBJ,
  // inline faces), as MuJoCo 2.2.2 does
  bool consistent = true;
};

// The triangles of an STL (binary or ASCII), OBJ or MuJoCo MSH file, by its extension in any
// case.  `mirror` reverses every triangle (a scale of negative determinant).  Of an OBJ file, the
// first object's faces and the vertices they use, or every vertex when it has no face (MuJoCo
// 2.2.2); of an MSH file its vertices and triangles.
// ModelError "cannot open the file", "not an STL file: ...", ... (the caller names the file).
Triangles read_file(const std::filesystem::path& path, bool mirror);

// whether directed edges repeat: two triangles that share an edge run it in opposite directions
bool consistent_orientation(std::span<const int> face);

// The convex hull of a point set by qhull with MuJoCo's options ("Qt": triangulated
// facets): its vertices (indices into the points, increasing) and triangles (indices into the
// points, counter-clockwise seen from outside).  nullopt and qhull's message in `error` when the
// points span no volume (fewer than four, or all in one plane).
struct Hull {
  std::vector<int> vert;
  std::vector<int> face;
};
std::optional<Hull> convex_hull(std::span<const float> points, std::string* error);

// how a mesh's mass is spread
enum class Inertia {
  kVolume222,       // MuJoCo 2.2.2: solid; each tetrahedron's volume taken positive
  kVolumeExact222,  // MuJoCo 2.2.2 with <compiler exactmeshinertia="true">: signed volumes
  kLegacy,          // MuJoCo 3 inertia="legacy": positive volumes
  kExact,           // MuJoCo 3 inertia="exact": signed volumes
  kConvex,          // MuJoCo 3 inertia="convex": the solid convex hull
  kShell,           // MuJoCo 3 inertia="shell": the surface, mass per area
};

// a frame of the mesh: the centre of mass and principal axes (eigenvalues decreasing), the
// half-sizes of the box with the same principal moments per unit mass, and the volume (area
// for a shell)
struct Frame {
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  Vec3d box{0, 0, 0};
  double volume = 0;
};

// the user's placement of the mesh, applied first: v ← diag(scale) Rᵀ (v − refpos)
struct Placement {
  Vec3d refpos{0, 0, 0};
  Quatd refquat{1, 0, 0, 0};
  Vec3d scale{1, 1, 1};
};

// what makes a mesh's inertia unusable
enum class Defect {
  kNone,
  kOrientation,
  kArea,
  kVolume,
  kNegativeVolume,
  kEigenvalue,
  kInequality,
  kOverflow
};
std::string_view describe(Defect d);

struct Processed {
  std::vector<float> vert;  // in the mesh frame: centred and rotated as `volume` says
  // the mesh frame and its box; for MuJoCo 2.2.2's meshes also the frame of the surface's mass
  // (geom shellinertia) within the mesh frame, its box and area
  Frame volume, shell;
  Vec3d aabb{0, 0, 0};  // max |v| per axis in the mesh frame
  // MuJoCo 2.2.2 reports these only where a geom's inertia or fit uses the mesh; `volume` and
  // `shell` keep what was computed before the failure (identity frames when nothing was)
  Defect defect = Defect::kNone;
};

// MuJoCo's processing of a mesh: placement, then the centre of mass and principal axes
// of the mass the Inertia says, the mesh moved into that frame.  `hull` (faces over the same
// vertices) is used by kConvex only; `density` is the mesh's class's geom density, which MuJoCo
// 2.2.2 multiplies into its moments (a zero density leaves no positive eigenvalue).
Processed process(const Triangles& t, const Placement& p, Inertia inertia, double density,
                  const Hull* hull);

// The faces of a convex hull as MuJoCo 4 groups them for its plane contacts: triangles (indices
// into `vert`, x y z per vertex, counter-clockwise seen from outside) whose outward normals have
// the same spherical angles rounded to kPolygonAngle (θ = atan2(n_y, n_x), φ = acos(n_z); φ is
// 0 or π within 1e-7 of a pole) form one face; each face's boundary, traced along the triangles'
// winding, is a polygon (a face in several pieces gives one per piece of three or more
// vertices).  Degenerate triangles (|n| < 1e-15) join none.  Polygons in the order of their
// face's first triangle, each from its first boundary edge.
inline constexpr double kPolygonAngle = 0.01;
std::vector<std::vector<int>> hull_polygons(std::span<const double> vert,
                                            std::span<const int> face);

}  // namespace zwang::mesh
