// MJCF meshes: <asset><mesh> (a file, or vertices and faces inline), read and processed as MuJoCo
// 2.2.2 does (host/mesh/mesh.hpp), and the geoms that use them.  A mesh geom's frame is its own pos
// and quat composed with the mesh's frame (centre of mass, principal axes); its mass is spread
// over the mesh's equivalent inertia box; a primitive with a mesh attribute is fitted to it.
#include "host/mesh/mesh.hpp"

#include <fmt/format.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string_view>
#include <utility>

#include "host/load/body_merge.hpp"
#include "host/mjcf/mesh.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

struct Mesh {
  pugi::xml_node node;
  std::string name;
  std::string file;          // as resolved, empty for a mesh given inline
  bool mj3 = false;          // MuJoCo 3's and 4's rules decide its inertia
  bool inertia_set = false;  // by its inertia attribute
  mesh::Processed p;
  std::optional<mesh::Hull> hull;  // over p.vert
  // a stored hull (StoredHull): its vertices as written, in double precision, and its faces
  bool stored = false;
  std::vector<double> stored_vert;
  std::vector<int> stored_face;

  // how messages name it: mesh 'name' (file 'path')
  std::string label() const {
    return file.empty() ? fmt::format("mesh '{}'", name)
                        : fmt::format("mesh '{}' (file '{}')", name, file);
  }
};

template <class T>
std::vector<T> attribute_list(Attrs& a, const char* attribute) {
  const std::optional<std::string> text = a.text(attribute);
  std::vector<T> out;
  if (!text) return out;
  const std::string_view s = *text;
  std::size_t i = 0;
  while (true) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    if (i == s.size()) break;
    std::size_t end = i;
    while (end < s.size() && !std::isspace(static_cast<unsigned char>(s[end]))) ++end;
    std::string_view token = s.substr(i, end - i);
    if (token.size() > 1 && token[0] == '+' && token[1] != '-') token.remove_prefix(1);
    T v{};
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    bool bad = ec != std::errc() || ptr != token.data() + token.size();
    if constexpr (std::is_floating_point_v<T>) bad = bad || !std::isfinite(v);
    if (bad) {
      a.fail(fmt::format("<{}> attribute '{}': '{}' is not {}", a.tag(), attribute,
                         s.substr(i, end - i),
                         std::is_floating_point_v<T> ? "a finite number" : "an integer"));
    }
    out.push_back(v);
    i = end;
  }
  return out;
}

template std::vector<float> attribute_list<float>(Attrs&, const char*);
template std::vector<double> attribute_list<double>(Attrs&, const char*);
template std::vector<int> attribute_list<int>(Attrs&, const char*);

std::filesystem::path resolve(const Context& ctx, const Compiler& c, std::string file) {
  namespace fs = std::filesystem;
  if (c.strippath) file = fs::path(file).filename().string();
  const fs::path name(file);
  if (name.is_absolute()) return name;
  const fs::path dir(!c.meshdir.empty() ? c.meshdir : c.assetdir);
  if (dir.is_absolute()) return dir / name;
  return ctx.model_dir() / dir / name;
}

namespace {

Eigen::Quaterniond eigen(const Quatd& q) {
  return {q[0], q[1], q[2], q[3]};
}

// a primitive fitted to a mesh, MuJoCo's mjCMesh::FitGeom: to the equivalent inertia box of the
// frame `f` (in the mesh frame), or with fitaabb to the bounding box of the vertices in the mesh
// frame as MuJoCo 3 does (MuJoCo 2.2.2 takes that box's centre in the principal axes for a
// point in the geom frame, and sizes spheres and capsules by the farthest vertex); returns the
// fitted geom's frame within the geom frame
std::pair<Vec3d, Quatd> fit(Attrs& a, const Mesh& m, const mesh::Frame& f, bool aabb, GeomDef& g) {
  if (g.type != GeomType::kSphere && g.type != GeomType::kCapsule &&
      g.type != GeomType::kCylinder && g.type != GeomType::kEllipsoid && g.type != GeomType::kBox) {
    a.fail(fmt::format("a {} geom cannot be fitted to {}", zwang::to_string(g.type), m.label()));
  }
  Vec3d pos = f.pos;
  Vec3d b = f.box;
  if (aabb) {
    // the box [lo, hi] of the vertices in the mesh frame, its centre carried into the geom frame
    const std::vector<float>& v = m.p.vert;
    double lo[3] = {1e10, 1e10, 1e10}, hi[3] = {-1e10, -1e10, -1e10};
    for (std::size_t i = 0; i < v.size(); ++i) {
      lo[i % 3] = std::min(lo[i % 3], static_cast<double>(v[i]));
      hi[i % 3] = std::max(hi[i % 3], static_cast<double>(v[i]));
    }
    const Eigen::Vector3d center((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, (lo[2] + hi[2]) / 2);
    const Eigen::Vector3d p = eigen(f.quat).toRotationMatrix() * center;
    for (int k = 0; k < 3; ++k) {
      pos[k] += p(k);
      b[k] = hi[k] - center(k);
    }
  }
  switch (g.type) {
    case GeomType::kSphere:
      g.size[0] = aabb ? std::max({b[0], b[1], b[2]}) : (b[0] + b[1] + b[2]) / 3;
      break;
    case GeomType::kCapsule:
      g.size[0] = aabb ? std::max(b[0], b[1]) : (b[0] + b[1]) / 2;
      g.size[1] = aabb ? b[2] - g.size[0] : std::max(0.0, b[2] - g.size[0] / 2);
      break;
    case GeomType::kCylinder:
      g.size[0] = aabb ? std::max(b[0], b[1]) : (b[0] + b[1]) / 2;
      g.size[1] = b[2];
      break;
    default:
      g.size = b;
      break;
  }
  for (double& s : g.size) s *= g.fitscale;
  return {pos, f.quat};
}

}  // namespace

Meshes::~Meshes() = default;

Meshes::Meshes(Context& ctx, std::span<const pugi::xml_node> assets, const Defaults& defaults,
               const Compiler& c, const std::vector<Body>& bodies, const StoredHulls& stored)
    : ctx_(ctx), c_(c) {
  // MuJoCo builds the hull of the meshes of mesh geoms that can collide
  std::set<std::string, std::less<>> collide;
  for (const Body& b : bodies) {
    for (const Geom& g : b.geoms) {
      if (g.def.type == GeomType::kMesh && (g.def.contype != 0 || g.def.conaffinity != 0)) {
        collide.insert(g.def.mesh);
      }
    }
  }
  // the distinct mesh files together, before any is read
  {
    std::set<std::string> seen;
    std::uintmax_t bytes = 0;
    for (const pugi::xml_node asset : assets) {
      for (const pugi::xml_node node : ctx_.children(asset)) {
        const pugi::xml_attribute file = node.attribute("file");
        if (std::string_view(node.name()) != "mesh" || !file) continue;
        std::error_code ec;
        const std::filesystem::path path = resolve(ctx_, c, file.value());
        if (!seen.insert(std::filesystem::weakly_canonical(path, ec).string()).second) continue;
        const std::uintmax_t size = std::filesystem::file_size(path, ec);
        bytes += ec ? 0 : size;
        if (bytes > mesh::kMaxMeshBytes) {
          ctx_.fail(node, fmt::format("the model's distinct mesh files together have more than "
                                      "the {} MiB a model's meshes may have",
                                      mesh::kMaxMeshBytes >> 20));
        }
      }
    }
  }
  std::map<std::string, mesh::Triangles> files;  // by canonical path, as read (not mirrored)
  for (const pugi::xml_node asset : assets) {
    Attrs self(ctx_, asset);
    self.finish();
    for (const pugi::xml_node node : ctx_.children(asset)) {
      // textures, materials, skins: rendering; height fields: host/mjcf/hfield.cc
      if (std::string_view(node.name()) != "mesh") continue;
      Attrs a(ctx_, node);
      const DefaultClass& cls = defaults.of(a, "");
      MeshDef d = cls.mesh;
      read_mesh(a, d);
      auto m = std::make_unique<Mesh>();
      m->node = node;
      const std::optional<std::string> file = a.text("file");
      m->name = a.text("name").value_or("");
      if (m->name.empty() && file) m->name = std::filesystem::path(*file).stem().string();
      if (m->name.empty()) a.fail("<mesh> needs a name or a file");
      if (const auto it = index_.find(m->name); it != index_.end()) {
        a.fail(fmt::format("mesh name '{}' is already used by the mesh at {}", m->name,
                           ctx_.where(meshes_[it->second]->node)));
      }
      mesh::Placement place;
      a.exact("refpos", place.refpos);
      std::array<double, 4> q{};
      if (a.exact("refquat", q)) {
        if (q[0] == 0 && q[1] == 0 && q[2] == 0 && q[3] == 0) {
          a.fail("<mesh> attribute 'refquat' has zero length");
        }
        place.refquat = q;
      }
      place.scale = d.scale;
      const std::vector<float> vertex = attribute_list<float>(a, "vertex");
      const std::vector<int> face = attribute_list<int>(a, "face");
      // normals and texture coordinates are for rendering
      a.ignore({"class", "normal", "texcoord", "smoothnormal", "content_type"});
      a.finish();
      m->file = file ? resolve(ctx_, c, *file).string() : "";

      if (const auto s = stored.find(m->name); s != stored.end()) {
        read_stored(a, *m, s->second, place, collide.count(m->name) != 0, file.has_value());
        index_[m->name] = static_cast<int>(meshes_.size());
        meshes_.push_back(std::move(m));
        continue;
      }

      // the triangles: from the file, or inline (MuJoCo keeps the inline winding whatever the
      // scale's sign)
      mesh::Triangles t;
      if (file) {
        if (!vertex.empty() || !face.empty()) {
          a.fail(fmt::format("{} has both a file and inline {}", m->label(),
                             vertex.empty() ? "faces" : "vertices"));
        }
        try {
          // a file is read once however many meshes name it (mirrored where one's scale has a
          // negative determinant), and a model's distinct mesh files are bounded together
          std::error_code ec;
          const std::string key = std::filesystem::weakly_canonical(m->file, ec).string();
          auto known = files.find(key);
          if (known == files.end())
            known = files.emplace(key, mesh::read_file(m->file, false)).first;
          t = known->second;
          if (place.scale[0] * place.scale[1] * place.scale[2] < 0) {
            for (std::size_t i = 0; i < t.face.size(); i += 3)
              std::swap(t.face[i + 1], t.face[i + 2]);
          }
        } catch (const ModelError& e) {
          a.fail(fmt::format("{}: {}", m->label(), e.what()));
        }
      } else {
        if (vertex.empty())
          a.fail(fmt::format("{} has no vertices (give file or vertex)", m->label()));
        if (vertex.size() % 3 != 0 || vertex.size() < 12) {
          a.fail(
              fmt::format("{}: 'vertex' needs at least 4 vertices of 3 numbers; it has {} numbers",
                          m->label(), vertex.size()));
        }
        if (face.size() % 3 != 0) {
          a.fail(fmt::format("{}: 'face' needs 3 vertex indices per triangle; it has {} indices",
                             m->label(), face.size()));
        }
        const int n = static_cast<int>(vertex.size() / 3);
        for (std::size_t i = 0; i < face.size(); ++i) {
          if (face[i] < 0 || face[i] >= n) {
            a.fail(fmt::format("{}: face {} uses vertex {}, of {} vertices (numbered from 0)",
                               m->label(), i / 3, face[i], n));
          }
        }
        t.vert = vertex;
        t.face = face;
        t.consistent = mesh::consistent_orientation(face);
      }

      // the convex hull, of the vertices as read; where MuJoCo needs it (a mesh geom that can
      // collide, no faces given, convex inertia) its absence is an error
      std::string hull_error;
      m->hull = mesh::convex_hull(t.vert, &hull_error);
      const bool convex = d.inertia == 2;
      if (!m->hull && (collide.count(m->name) != 0 || t.face.empty() || convex)) {
        a.fail(fmt::format("{}: no convex hull ({})", m->label(), hull_error));
      }
      // the hull is made before the placement: a mirroring scale turns its triangles inward
      if (m->hull && place.scale[0] * place.scale[1] * place.scale[2] < 0) {
        for (std::size_t f = 0; f < m->hull->face.size(); f += 3) {
          std::swap(m->hull->face[f + 1], m->hull->face[f + 2]);
        }
      }
      if (t.face.empty()) t.face = m->hull->face;

      // no `inertia`: MuJoCo 4.0's default, legacy; MuJoCo 2.2.2's rule under its rules or with
      // its <compiler exactmeshinertia> (an attribute MuJoCo 3 and 4 no longer read)
      const bool rule222 = !d.inertia && (ctx.rules == Rules::kMujoco2 || c.exactmeshinertia);
      m->mj3 = !rule222;
      m->inertia_set = d.inertia.has_value();
      const mesh::Inertia inertia = rule222 ? (c.exactmeshinertia ? mesh::Inertia::kVolumeExact222
                                                                  : mesh::Inertia::kVolume222)
                                    : !d.inertia || *d.inertia == 0 ? mesh::Inertia::kLegacy
                                    : *d.inertia == 1               ? mesh::Inertia::kExact
                                    : *d.inertia == 2               ? mesh::Inertia::kConvex
                                                                    : mesh::Inertia::kShell;
      m->p = mesh::process(t, place, inertia, cls.geom.density, m->hull ? &*m->hull : nullptr);
      // MuJoCo 3 refuses a mesh without inertia at once, MuJoCo 2.2.2 where it is used
      if (m->mj3 && m->p.defect != mesh::Defect::kNone) {
        a.fail(fmt::format("{}: {}", m->label(), mesh::describe(m->p.defect)));
      }
      index_[m->name] = static_cast<int>(meshes_.size());
      meshes_.push_back(std::move(m));
    }
  }
}

void Meshes::read_stored(Attrs& a, Mesh& m, const StoredHull& s, const mesh::Placement& place,
                         bool collides, bool file) const {
  const std::string numeric = fmt::format("numeric 'hull:{}' at {}", m.name, ctx_.where(s.node));
  if (file)
    a.fail(fmt::format("{} is a stored hull ({}): give its vertices inline", m.label(), numeric));
  // MuJoCo would place the vertices; zwang takes them as they are
  if (place.refpos != Vec3d{0, 0, 0} || place.refquat != Quatd{1, 0, 0, 0} ||
      place.scale != Vec3d{1, 1, 1}) {
    a.fail(
        fmt::format("{} is a stored hull ({}): it cannot have refpos, refquat or a scale "
                    "(its class's included)",
                    m.label(), numeric));
  }
  if (!s.hull && collides) {
    a.fail(fmt::format("{} has no hull ({}), but a geom that can collide uses it", m.label(),
                       numeric));
  }
  m.stored = true;
  m.stored_vert = attribute_list<double>(a, "vertex");
  const std::vector<int> face = attribute_list<int>(a, "face");
  const int n = static_cast<int>(m.stored_vert.size() / 3);
  if (s.hull) {
    m.stored_face = face;
    if (face.empty() || face.size() % 3 != 0) {
      a.fail(fmt::format("{}: a stored hull ({}) needs its triangles in 'face', 3 indices each",
                         m.label(), numeric));
    }
    m.hull = mesh::Hull{};
    for (int v = 0; v < n; ++v) m.hull->vert.push_back(v);
    m.hull->face = face;
  }
  m.p.vert.assign(m.stored_vert.begin(), m.stored_vert.end());
  for (int v = 0; v < n; ++v) {
    for (int k = 0; k < 3; ++k) {
      m.p.aabb[k] = std::max(m.p.aabb[k], std::abs(m.stored_vert[3 * v + k]));
    }
  }
}

void Meshes::apply(std::vector<Body>& bodies) const {
  for (std::size_t b = 0; b < bodies.size(); ++b) {
    for (Geom& g : bodies[b].geoms) {
      GeomDef& d = g.def;
      if (d.mesh.empty()) continue;
      Attrs a(ctx_, g.node);
      const auto it = index_.find(d.mesh);
      if (it == index_.end()) a.fail(fmt::format("<geom> names no mesh '{}'", d.mesh));
      const Mesh& m = *meshes_[it->second];
      if (m.mj3 && d.shellinertia) {
        a.fail(m.inertia_set
                   ? fmt::format("<geom> shellinertia with {}, whose inertia attribute decides "
                                 "(inertia=\"shell\")",
                                 m.label())
                   : fmt::format("<geom> shellinertia with {}: MuJoCo 4.0 takes a mesh's inertia "
                                 "from the mesh (inertia=\"shell\"); MuJoCo 2.2.2's rules read "
                                 "shellinertia (rules=\"2.2.2\")",
                                 m.label()));
      }
      if (m.stored) {
        // in the geom frame already; the geom's size as written, else the bounding box
        if (d.type != GeomType::kMesh) {
          a.fail(
              fmt::format("a primitive cannot be fitted to {}, a stored hull (numeric "
                          "'hull:{}'): it keeps no inertia",
                          m.label(), m.name));
        }
        if (!g.node.attribute("size")) d.size = m.p.aabb;
        GeomMesh gm;
        gm.mesh = it->second;
        gm.defect = fmt::format(
            "the body's inertia would come from this geom, but {} is a stored hull (numeric "
            "'hull:{}'), which keeps no inertia; give the body an <inertial>",
            m.label(), m.name);
        g.mesh = gm;
        continue;
      }
      // a shell's frame within the mesh frame, carried into the geom frame
      mesh::Frame f = m.p.volume;
      if (d.shellinertia) {
        f = m.p.shell;
        f.pos = m.p.volume.pos;
        f.quat = m.p.volume.quat;
        accumulate(f.pos, f.quat, m.p.shell.pos, m.p.shell.quat);
      }
      const std::string defect = m.p.defect == mesh::Defect::kNone
                                     ? ""
                                     : fmt::format("{} (at {}) has no inertia: {}", m.label(),
                                                   ctx_.where(m.node), mesh::describe(m.p.defect));
      if (d.type != GeomType::kMesh) {
        if (!defect.empty()) a.fail(fmt::format("the geom cannot be fitted: {}", defect));
        const auto [pos, quat] = fit(a, m, f, c_.fitaabb, d);
        accumulate(d.pos, d.quat, pos, quat);
        check_geom_size(a, d);
        d.mesh.clear();
        continue;
      }
      accumulate(d.pos, d.quat, m.p.volume.pos, m.p.volume.quat);
      d.size = m.p.aabb;
      GeomMesh gm;
      gm.mesh = it->second;
      gm.box = f.box;
      if (d.shellinertia) {
        gm.pos = m.p.shell.pos;
        gm.quat = m.p.shell.quat;
      }
      // MuJoCo 2.2.2 spreads a solid's mass over its inertia box's volume unless
      // exactmeshinertia; MuJoCo 3 over the mesh's volume, a shell's over its area
      const Vec3d& vb = m.p.volume.box;
      gm.volume =
          m.mj3 || c_.exactmeshinertia || d.shellinertia ? f.volume : 8 * vb[0] * vb[1] * vb[2];
      if (!defect.empty()) {
        gm.defect = fmt::format(
            "the body's inertia would come from this geom, but {}; give the body an <inertial>",
            defect);
      }
      g.mesh = gm;
    }
  }
}

void Meshes::add_to(ModelBuilder& builder) const {
  for (const auto& m : meshes_) {
    MeshSpec spec;
    spec.name = m->name;
    if (m->stored) {
      if (m->hull) {
        spec.vert = m->stored_vert;
        spec.face = m->stored_face;
      }
    } else if (m->hull) {
      std::vector<int> local(m->p.vert.size() / 3, -1);
      for (const int v : m->hull->vert) {
        local[v] = static_cast<int>(spec.vert.size() / 3);
        spec.vert.insert(spec.vert.end(), m->p.vert.begin() + 3 * v, m->p.vert.begin() + 3 * v + 3);
      }
      for (const int v : m->hull->face) spec.face.push_back(local[v]);
    }
    try {
      builder.add_mesh(spec);
    } catch (const ModelError& e) {
      ctx_.fail(m->node, e.what());
    }
  }
}

}  // namespace zwang::mjcf
