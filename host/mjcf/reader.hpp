// The MJCF loader's internals: files and messages, attribute reading, default classes, the
// parsed body tree before it becomes a Model, and contacts.  MuJoCo 2.2.2 is the reference for
// every rule.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <pugixml.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "host/load/body_merge.hpp"
#include "host/load/text_lines.hpp"
#include "host/load/warnings.hpp"
#include "zwang/model.hpp"

namespace zwang::mjcf {

// ---------------------------------------------------------------------------------------------
// files and messages

// one parsed file: the main one or an <include>d one
struct File {
  std::string name;                // as messages show it
  std::filesystem::path path;      // empty for a string
  std::filesystem::path dir;       // <include> paths are relative to it
  const File* includer = nullptr;  // the file whose <include> opened this one
  std::string text;                // what pugixml parsed
  TextLines lines;                 // the line of an offset in text
  pugi::xml_document doc;
};

class Context {
 public:
  // the <mujoco> root of a document; ModelError "name:line: ..." when the XML is malformed
  pugi::xml_node parse(std::string text, std::string name, std::filesystem::path path,
                       std::filesystem::path dir, const File* includer = nullptr);

  // "file:line" of an element
  std::string where(pugi::xml_node node) const;
  [[noreturn]] void fail(pugi::xml_node node, std::string_view what) const;
  // "file:line: what", once however often it is produced; the same `what` at other places is
  // counted on the same line (LoadWarnings)
  void warn(pugi::xml_node node, std::string_view what);
  // "file:line: element <tag> is not supported; ignored", with an optional reason
  void unsupported(pugi::xml_node node, std::string_view reason = {});

  // the element children of a node, each <include> replaced by the children of its file's root
  std::vector<pugi::xml_node> children(pugi::xml_node node);

  LoadWarnings warnings;
  // the directory of the model's main file, where MuJoCo looks for mesh files
  const std::filesystem::path& model_dir() const { return files_.front()->dir; }

 private:
  const File& file_of(pugi::xml_node node) const;
  pugi::xml_node include(pugi::xml_node node);

  std::vector<std::unique_ptr<File>> files_;
  std::map<const void*, pugi::xml_node> included_;  // <include> element => root of its file
  std::uintmax_t text_bytes_ = 0;                   // of every file parsed
};

// the attributes of one element; every attribute must be read or ignored before finish(), which
// warns once about each of the others
class Attrs {
 public:
  Attrs(Context& ctx, pugi::xml_node node) : ctx_(ctx), node_(node) {}

  pugi::xml_node node() const { return node_; }
  std::string tag() const { return node_.name(); }
  Context& context() const { return ctx_; }
  bool has(const char* name) const;

  std::optional<std::string> text(const char* name);
  std::string required_text(const char* name);
  std::optional<double> number(const char* name);
  // between `min` and out.size() numbers into the front of `out`; the count, 0 if absent
  int numbers(const char* name, std::span<double> out, int min);
  template <std::size_t N>
  bool exact(const char* name, std::array<double, N>& out) {
    return numbers(name, out, static_cast<int>(N)) > 0;
  }
  // an integral number within the range of int
  std::optional<int> integer(const char* name);
  std::optional<bool> boolean(const char* name);
  // the index of the value among `options`; an error naming them otherwise
  std::optional<int> keyword(const char* name, std::initializer_list<std::string_view> options);

  // attributes accepted without effect (rendering, user and solver data)
  void ignore(std::initializer_list<const char*> names);
  void finish();

  [[noreturn]] void fail(std::string_view what) const;

 private:
  const char* value(const char* name);

  Context& ctx_;
  pugi::xml_node node_;
  std::set<std::string, std::less<>> used_;
};

// ---------------------------------------------------------------------------------------------
// compiler settings and orientations

enum class InertiaFromGeom { kFalse, kTrue, kAuto };

struct Compiler {
  pugi::xml_node node;           // the last <compiler>, for messages
  bool degree = true;            // angle="degree": euler, axisangle and hinge values in degrees
  std::string eulerseq = "xyz";  // lowercase: axes that move with the frame; uppercase: fixed
  InertiaFromGeom inertiafromgeom = InertiaFromGeom::kAuto;
  bool autolimits = false;  // a nonzero range makes a joint or actuator limited
  double settotalmass = -1;
  double boundmass = 0;
  double boundinertia = 0;
  std::array<double, 2> inertiagrouprange{0, 5};
  // meshes: files relative to meshdir, else assetdir, else the model's directory (strippath:
  // their directories dropped); 2.2.2's signed-volume inertia; primitives fitted to a mesh's
  // bounding box instead of its inertia box
  std::string meshdir, assetdir;
  bool strippath = false;
  bool exactmeshinertia = false;
  bool fitaabb = false;
  // bodies without joints merged into their parents (host/mjcf/fuse.cc)
  bool fusestatic = false;
  // <lengthrange>: which actuators need a length range (mode none muscle muscleuser all), and
  // where it may come from without simulation (a given one, the joint's limits)
  int lengthrange_mode = 1;
  bool lengthrange_useexisting = true, lengthrange_uselimit = false;

  double angle_scale() const;
};

void read_compiler(Attrs& a, Compiler& c);
// <compiler><lengthrange>
void read_lengthrange(Attrs& a, Compiler& c);

// <option><flag>: MuJoCo 2.2.2's names and MuJoCo 3 and 4's, each value "enable" or
// "disable"; the DisableBit flags into `disableflags`, a warning or an error naming what differs
// for the features zwang lacks, an error for any other attribute
void read_flag(Context& ctx, pugi::xml_node node, int& disableflags);

// <keyframe>'s <key> elements into the builder, then default keys up to `nkey` (<size nkey>);
// the <key> elements in key order, for the builder's messages about them
std::vector<pugi::xml_node> read_keyframes(Context& ctx, std::span<const pugi::xml_node> keys,
                                           int nkey, ModelBuilder& builder);

// the orientation given by quat, axisangle, euler, xyaxes or zaxis; nullopt when none is
// given; an error when more than one is
std::optional<Quatd> read_orientation(Attrs& a, const Compiler& c);
// the rotation taking (0, 0, 1) to v by the smallest angle
Quatd z_to(const Vec3d& v);

// ---------------------------------------------------------------------------------------------
// default classes

enum class Limited { kAuto, kFalse, kTrue };

// a limited flag and its range as MuJoCo resolves them; `what` names the attributes
bool resolve_limited(const Attrs& a, Limited limited, const std::array<double, 2>& range,
                     bool autolimits, std::string_view flag, std::string_view range_name);

struct JointDef {
  JointType type = JointType::kHinge;
  Vec3d pos{0, 0, 0};
  Vec3d axis{0, 0, 1};
  double damping = 0, armature = 0, stiffness = 0, frictionloss = 0;
  double ref = 0, springref = 0;  // hinge: in the compiler's angle unit
  Limited limited = Limited::kAuto;
  std::array<double, 2> range{0, 0};  // hinge and ball: in the compiler's angle unit
  double margin = 0;                  // rad or m: MuJoCo converts no margin from degrees
  SolRef solreflimit = kDefaultSolRef, solreffriction = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp, solimpfriction = kDefaultSolImp;
};

// "plane", "sphere", ... as MJCF writes the type
std::string_view geom_type_name(GeomType type);

struct GeomDef {
  GeomType type = GeomType::kSphere;
  std::array<double, 3> size{0, 0, 0};
  double density = 1000;
  double mass = -1;  // < 0: from the density
  int group = 0;
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  std::optional<std::array<double, 6>> fromto;
  // a mesh geom's mesh, or the mesh a primitive is fitted to (scaled by fitscale); shellinertia:
  // the mesh's surface carries the mass (MuJoCo 2.2.2's attribute, MuJoCo 3's shell)
  std::string mesh;
  double fitscale = 1;
  bool shellinertia = false;
  // what rangefinder rays see: the alpha of rgba, or of the material's rgba where it has one
  double alpha = 1;
  std::string material;
  // contact parameters, GeomSpec's
  int contype = 1, conaffinity = 1, condim = 3, priority = 0;
  Vec3d friction{1, 0.005, 0.0001};
  double margin = 0, gap = 0, solmix = 1;
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
};

// a site's frame in its body; fromto (capsule, cylinder, box, ellipsoid) sets both, as a geom's
struct SiteDef {
  GeomType type = GeomType::kSphere;
  Vec3d size{0.005, 0.005, 0.005};  // numbers not given keep the class's
  Vec3d pos{0, 0, 0};
  Quatd quat{1, 0, 0, 0};
  std::optional<std::array<double, 6>> fromto;
};

// what <default><pair> sets: MuJoCo 2.2.2's mjCPair starts from these values, never from its
// geoms (the compiler's mixing of unset pair parameters cannot be reached from MJCF)
struct PairDef {
  int condim = 3;
  std::array<double, 5> friction{1, 1, 0.005, 0.0001, 0.0001};
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
  double margin = 0, gap = 0;
};

// MuJoCo's general actuator, which motor, position and velocity set up
struct ActuatorDef {
  int dyntype = 0;   // none integrator filter muscle user filterexact
  int gaintype = 0;  // fixed affine muscle user
  int biastype = 0;  // none affine muscle user
  std::array<double, 10> gainprm{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  std::array<double, 10> biasprm{};
  std::array<double, 10> dynprm{1, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  Limited actlimited = Limited::kAuto;
  std::array<double, 2> actrange{0, 0};
  bool actearly = false;  // MuJoCo 3: the force from the activation at the end of the step
  std::array<double, 2> lengthrange{0, 0};
  std::array<double, 6> gear{1, 0, 0, 0, 0, 0};
  Limited ctrllimited = Limited::kAuto, forcelimited = Limited::kAuto;
  std::array<double, 2> ctrlrange{0, 0}, forcerange{0, 0};
};

struct TendonDef {
  double stiffness = 0, damping = 0, frictionloss = 0;
  double springlength = -1;  // < 0: the length at qpos_spring
  Limited limited = Limited::kAuto;
  std::array<double, 2> range{0, 0};
  double margin = 0;
  SolRef solreflimit = kDefaultSolRef, solreffriction = kDefaultSolRef;
  SolImp solimplimit = kDefaultSolImp, solimpfriction = kDefaultSolImp;
};

// what <default><equality> sets for connect, weld and joint equalities
struct EqualityDef {
  bool active = true;
  SolRef solref = kDefaultSolRef;
  SolImp solimp = kDefaultSolImp;
};

// what <default><mesh> sets
struct MeshDef {
  Vec3d scale{1, 1, 1};
  std::optional<int> inertia;  // MuJoCo 3's inertia attribute: legacy exact convex shell
};

struct DefaultClass {
  MeshDef mesh;
  JointDef joint;
  GeomDef geom;
  ActuatorDef actuator;
  TendonDef tendon;
  EqualityDef equality;
  PairDef pair;
  SiteDef site;
  double material_alpha = 1;  // the alpha of <material rgba>
};

class Defaults {
 public:
  // the classes of every <default> section, "main" at the top
  Defaults(Context& ctx, std::span<const pugi::xml_node> sections, const Compiler& c);
  // the class named by the element's `class`, else `active` (a body's childclass)
  const DefaultClass& of(Attrs& a, std::string_view active) const;
  const DefaultClass& named(pugi::xml_node node, std::string_view name) const;

 private:
  // one top <default> and the classes nested in it
  void read(pugi::xml_node section);
  // the class of one <default>, starting from its parent's; its nested <default> elements
  std::vector<pugi::xml_node> define(pugi::xml_node node, const std::string& name,
                                     const DefaultClass& parent);
  Context& ctx_;
  const Compiler& compiler_;
  std::map<std::string, DefaultClass, std::less<>> classes_;
};

// the attributes an element sets on top of its class (shared by <default> and the model)
void read_joint(Attrs& a, JointDef& d);
void read_geom(Attrs& a, GeomDef& d, const Compiler& c);
// `kind` is motor, position, velocity or general, each with MuJoCo's rule
void read_actuator(Attrs& a, std::string_view kind, ActuatorDef& d);
void read_tendon(Attrs& a, TendonDef& d);
void read_equality(Attrs& a, EqualityDef& d);
void read_pair(Attrs& a, PairDef& d);
void read_site(Attrs& a, SiteDef& d, const Compiler& c);
void read_mesh(Attrs& a, MeshDef& d);
bool is_actuator_kind(std::string_view tag);
bool is_supported_actuator_kind(std::string_view tag);

// ---------------------------------------------------------------------------------------------
// the body tree

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
  bool bounded = false;                // boundmass or boundinertia raised them
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

// ---------------------------------------------------------------------------------------------
// meshes (mjcf_mesh.cc)

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

// ---------------------------------------------------------------------------------------------
// contacts

// false for height-field geoms, which zwang leaves out of the model
bool collides(GeomType type);

// a geom of the document and the body it is on
struct GeomRef {
  const Geom* geom;
  int body;
};

// <contact>: <pair> and <exclude>, each with the lower-numbered body first and sorted by their
// bodies as MuJoCo stores them.  MuJoCo's std::sort is not stable: the same sort of the same
// sequence gives its order of equal body pairs (libstdc++'s, as the MuJoCo 2.2.2 the tests
// use).  Names unique among pairs and among exclusions.  `body_names` completes the names of
// `bodies`; `geoms` holds the named geoms of the document.
void add_contacts(Context& ctx, std::span<const pugi::xml_node> nodes, const Defaults& defaults,
                  const std::vector<Body>& bodies, std::span<const std::string> body_names,
                  const std::map<std::string, GeomRef, std::less<>>& geoms, ModelBuilder& builder);

// geom pairs that can touch (the filters or a <pair> let them through) but have no narrow
// phase: one warning per pair of types, located at the first such pair's first geom;
// `model_geoms` gives the element of each geom of the model
void note_unsupported_pairs(Context& ctx, const Model& model,
                            std::span<const Geom* const> model_geoms);

}  // namespace zwang::mjcf
