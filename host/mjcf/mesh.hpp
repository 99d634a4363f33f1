// The MJCF reader's meshes (host/mjcf/mesh.cc).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <pugixml.hpp>
#include <span>
#include <string>
#include <vector>

#include "host/mjcf/body.hpp"
#include "zwang/builder.hpp"

namespace zwang::mjcf {

struct Mesh;

// the <mesh> elements of the <asset> sections, read and processed as MuJoCo 2.2.2 does
// (MuJoCo 3's inertia attribute where given), in document order; `bodies` tell which meshes
// need a convex hull (those of mesh geoms that can collide, as MuJoCo)
class Meshes {
 public:
  Meshes(Context& ctx, std::span<const pugi::xml_node> assets, const Defaults& defaults,
         const Compiler& c, const std::vector<Body>& bodies);
  Meshes(const Meshes&) = delete;
  Meshes& operator=(const Meshes&) = delete;
  ~Meshes();

  // each geom with a mesh: a mesh geom takes the mesh's frame, size and inertia (Geom::mesh);
  // a primitive is fitted to the mesh
  void apply(std::vector<Body>& bodies) const;
  // every mesh's convex hull, in document order
  void add_to(ModelBuilder& builder) const;

 private:
  Context& ctx_;
  const Compiler& c_;
  std::vector<std::unique_ptr<Mesh>> meshes_;
  std::map<std::string, int, std::less<>> index_;
};

}  // namespace zwang::mjcf
