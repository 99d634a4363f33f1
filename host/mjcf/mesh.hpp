// The MJCF reader's meshes (host/mjcf/mesh.cc).
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "host/mesh/mesh.hpp"
#include "host/mjcf/body.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

struct Mesh;

// the whitespace-separated values of an attribute, none where it is absent: each a finite
// number (float) or an integer (int), else an error naming the attribute
template <class T>
std::vector<T> attribute_list(Attrs& a, const char* attribute);
extern template std::vector<float> attribute_list<float>(Attrs&, const char*);
extern template std::vector<double> attribute_list<double>(Attrs&, const char*);
extern template std::vector<int> attribute_list<int>(Attrs&, const char*);

// an asset file's path by MuJoCo's rules: absolute as given; else under meshdir (MuJoCo 3: or
// assetdir), itself absolute or relative to the model's directory
std::filesystem::path resolve(const Context& ctx, const Compiler& c, std::string file);

// zwang's stored hulls: <custom><numeric name="hull:MESH" data="1"/> says that the inline
// vertices and faces of MESH are its convex hull in the frame of its geoms, as a Model keeps it
// (Model::to_mjcf writes them so), to be taken as they are rather than re-centred; data="0" says
// the mesh has no hull and its vertices only stand in for its bounding box.  By mesh name, the
// value and the numeric.
struct StoredHull {
  bool hull = true;
  pugi::xml_node node;
};
using StoredHulls = std::map<std::string, StoredHull, std::less<>>;

// the <mesh> elements of the <asset> sections, read and processed as MuJoCo 2.2.2 does
// (MuJoCo 3's inertia attribute where given), in document order; `bodies` tell which meshes
// need a convex hull (those of mesh geoms that can collide, as MuJoCo)
class Meshes {
 public:
  Meshes(Context& ctx, std::span<const pugi::xml_node> assets, const Defaults& defaults,
         const Compiler& c, const std::vector<Body>& bodies, const StoredHulls& stored);
  Meshes(const Meshes&) = delete;
  Meshes& operator=(const Meshes&) = delete;
  ~Meshes();

  // each geom with a mesh: a mesh geom takes the mesh's frame, size and inertia (Geom::mesh);
  // a primitive is fitted to the mesh
  void apply(std::vector<Body>& bodies) const;
  // every mesh's convex hull, in document order
  void add_to(ModelBuilder& builder) const;
  bool has(std::string_view name) const { return index_.count(name) != 0; }

 private:
  // a stored hull's vertices and faces, as written
  void read_stored(Attrs& a, Mesh& m, const StoredHull& s, const mesh::Placement& place,
                   bool collides, bool file) const;

  Context& ctx_;
  const Compiler& c_;
  std::vector<std::unique_ptr<Mesh>> meshes_;
  std::map<std::string, int, std::less<>> index_;
};

}  // namespace zwang::mjcf
