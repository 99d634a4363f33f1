// URDF loader.  urdfdom parses the document; a second pass with pugixml over the same text gives
// the document order of the joints and the line of each element for messages; ModelBuilder
// validates what comes out.
//
//   URDF                      zwang
//   link                      body of the same name; no <inertial> gives zero mass
//   inertial origin xyz, rpy  COM, and the tensor I given in the inertial frame R:
//                             I_link = R I Rᵀ about the COM in the link frame
//   joint origin xyz, rpy     the child body's pos and quat in the parent link frame,
//                             R = Rz(yaw) Ry(pitch) Rx(roll)
//   revolute / continuous     hinge (revolute: limited to [lower, upper])
//   prismatic                 slide, limited to [lower, upper]
//   fixed                     no joint: the child is welded to its parent; with
//                             LoadOptions::fuse_static merged into it (MuJoCo's fusestatic),
//                             its frame kept as a merged body (Model::fused_*)
//   floating                  free joint, only from a root link named "world" to its child
//   planar                    ModelError (no planar joint in zwang)
//   axis                      hinge and slide axis in the child frame; anchor at the child origin
//   dynamics damping          joint damping per dof
//   dynamics friction         joint frictionloss per dof (as MuJoCo's URDF importer)
//
// Body order: depth-first from the root, the children of a link in the document order of the
// joints that attach them, so a parent always precedes its children; joints, qpos and qvel
// follow that order (MuJoCo's URDF importer orders bodies the same way).  A root link named
// "world" is zwang's world and its children hang from it; any other root link becomes a child
// of the world, welded, or on a free joint named "floating_base" when LoadOptions::floating_base.
// The model has no actuators; <visual> and <material> are ignored silently (rendering only),
// other elements outside this subset give one warning per kind, with their count.
//
// Leniency, as URDF importers have it (MuJoCo's and Pinocchio, see docs/urdf.md):
//   - inertias are taken as the file gives them (urdf_inertia.hpp): a tensor that is no rigid
//     body's gives a warning naming a link that moves; rounding-level negative moments are set
//     to 0; the joints must make H positive definite (InertiaRule::kMassMatrix), so a massless
//     link on a joint is fine when something below it has mass;
//   - <limit> with lower ≥ upper (pybullet's "no limit", urdfdom's default 0 0) leaves the joint
//     unlimited, as MuJoCo's importer does;
//   - urdfdom never sees <visual> and <collision>, so geometry it cannot read (pybullet's
//     "plane", a mesh scale of four numbers) does not fail the load; a <robot> without a name
//     is accepted.
#include <console_bridge/console.h>
#include <fmt/format.h>
#include <urdf_parser/urdf_parser.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <cstddef>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "host/load/body_merge.hpp"
#include "host/load/model_file.hpp"
#include "host/load/text_lines.hpp"
#include "host/load/warnings.hpp"
#include "host/load/xml_attributes.hpp"
#include "host/urdf/inertia.hpp"
#include "zwang/builder.hpp"
#include "zwang/loaders.hpp"

namespace zwang {
namespace {

constexpr const char* kWorld = "world";
constexpr const char* kFloatingBase = "floating_base";
// deepest element nesting accepted (the root element is at depth 0)
constexpr int kMaxUrdfNesting = 100;

// urdfdom reports through console_bridge, and after some errors (a malformed <inertial>) it
// logs and goes on with a default value, so every error it logs fails the load.  The handler
// and the log level are process-wide: the caller holds urdfdom_mutex() while one is installed.
class UrdfdomLog : public console_bridge::OutputHandler {
 public:
  UrdfdomLog()
      : previous_(console_bridge::getOutputHandler()), level_(console_bridge::getLogLevel()) {
    console_bridge::useOutputHandler(this);
    console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_WARN);
  }
  ~UrdfdomLog() override {
    console_bridge::setLogLevel(level_);
    console_bridge::useOutputHandler(previous_);
  }
  UrdfdomLog(const UrdfdomLog&) = delete;
  UrdfdomLog& operator=(const UrdfdomLog&) = delete;

  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR ? errors : warnings).push_back(text);
  }

  std::vector<std::string> errors;
  std::vector<std::string> warnings;

 private:
  console_bridge::OutputHandler* previous_;
  console_bridge::LogLevel level_;
};

std::mutex& urdfdom_mutex() {
  static std::mutex m;
  return m;
}

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

// a <link> or <joint> element: its position in the document and its line
struct Element {
  int order;
  int line;
  pugi::xml_node node;
};
using Elements = std::map<std::string, Element, std::less<>>;

class UrdfReader {
 public:
  UrdfReader(std::string_view xml, const LoadOptions& options, std::string_view name)
      : xml_(xml), lines_(xml), options_(options), name_(name) {
    builder_.set_inertia_rule(InertiaRule::kMassMatrix);
  }

  LoadResult load() {
    index_elements();
    // a robot without links (ROS's empty description of a robot, pybullet's deformable body) is
    // the empty model, as MuJoCo's importer makes it; urdfdom refuses it
    if (robot_ && links_.empty() && joints_.empty()) {
      warnings_.add(where(line_of(robot_)), "the robot has no links: the model is the world alone");
      warn_ignored_elements();
      return {builder_.build(), warnings_.lines()};
    }
    parse();
    check_tree();
    warn_ignored();
    add_tree();
    Model model;
    try {
      model = builder_.build();
    } catch (const ModelError& e) {
      const std::string what = e.what();
      // pybullet's convention: a base link of mass 0 is static
      const urdf::Inertial* root = model_->getRoot()->inertial.get();
      const std::string hint =
          options_.floating_base && (!root || root->mass == 0) &&
                  what.starts_with(fmt::format("joint '{}': ", kFloatingBase))
              ? fmt::format(
                    " (root link '{}' has no mass: in pybullet's convention such a base "
                    "is static; load without the floating-base option)",
                    model_->getRoot()->name)
              : "";
      throw ModelError(fmt::format("{}: {}{}", where_named(what), what, hint));
    }
    return {std::move(model), warnings_.lines()};
  }

 private:
  // "file:line", or "file" where the line is unknown
  std::string where(int line) const { return line > 0 ? fmt::format("{}:{}", name_, line) : name_; }
  std::string where(const Elements& elements, std::string_view element_name) const {
    const auto it = elements.find(element_name);
    return where(it == elements.end() ? 0 : it->second.line);
  }
  // where the link or joint is that a message of the whole tree's checks starts with ("body
  // 'a': ..."); the longest such name, since a name may contain "': "
  std::string where_named(std::string_view what) const {
    const Element* found = nullptr;
    std::size_t longest = 0;
    for (const auto& [label, elements] :
         {std::pair{"body", &links_}, std::pair{"joint", &joints_}}) {
      for (const auto& [element_name, e] : *elements) {
        if (element_name.size() >= longest &&
            what.starts_with(fmt::format("{} '{}': ", label, element_name))) {
          found = &e;
          longest = element_name.size();
        }
      }
    }
    return where(found != nullptr ? found->line : 0);
  }
  // position in the document; urdfdom and pugixml read the same names, the fallback is a guard
  static int order_of(const Elements& elements, std::string_view element_name) {
    const auto it = elements.find(element_name);
    return it == elements.end() ? std::numeric_limits<int>::max() : it->second.order;
  }

  // urdfdom's links or joints in document order
  template <class T>
  static std::vector<std::shared_ptr<T>> in_document_order(
      const std::map<std::string, std::shared_ptr<T>>& parsed, const Elements& elements) {
    std::vector<std::shared_ptr<T>> out;
    for (const auto& [name, p] : parsed) out.push_back(p);
    std::stable_sort(out.begin(), out.end(), [&](const auto& a, const auto& b) {
      return order_of(elements, a->name) < order_of(elements, b->name);
    });
    return out;
  }
  int line_of(pugi::xml_node node) const { return lines_.line_at(node.offset_debug()); }

  // pugixml pass: well-formed XML, and the order and line of every link and joint
  void index_elements() {
    const pugi::xml_parse_result parsed = doc_.load_buffer(xml_.data(), xml_.size());
    if (!parsed) {
      throw ModelError(fmt::format("{}: malformed XML ({})", where(lines_.line_at(parsed.offset)),
                                   parsed.description()));
    }
    check_for_urdfdom();
    check_unique_attributes(doc_, [&](pugi::xml_node node, std::string_view attr) {
      throw ModelError(fmt::format("{}: <{}> has the attribute '{}' more than once",
                                   where(line_of(node)), node.name(), attr));
    });
    robot_ = doc_.child("robot");
    int order = 0;
    for (pugi::xml_node n : robot_.children()) {
      const std::string_view tag = n.name();
      if (tag == "link" || tag == "joint") {
        (tag == "link" ? links_ : joints_)
            .emplace(n.attribute("name").value(), Element{order++, line_of(n), n});
      }
    }
  }

  // What urdfdom cannot take safely, refused before it sees the text:
  //  - deep nesting: its XML parser recurses once per nested element, so it would overflow the
  //    stack; a URDF is at most a few elements deep (robot, link, visual, geometry, mesh);
  //  - '%' in an attribute value: urdfdom hands some messages that quote a value (a number it
  //    cannot read, a link name) to its logger as a printf format.  File names are never quoted.
  // The walk follows parent and sibling links, so it needs no stack of its own.
  void check_for_urdfdom() const {
    int depth = 0;
    pugi::xml_node n = doc_.first_child();
    while (n) {
      if (n.type() == pugi::node_element) {
        if (depth >= kMaxUrdfNesting) {
          throw ModelError(fmt::format(
              "{}: elements nested more than {} deep; a URDF is never nested that deeply",
              where(line_of(n)), kMaxUrdfNesting));
        }
        for (const pugi::xml_attribute a : n.attributes()) {
          if (std::string_view(a.value()).find('%') != std::string_view::npos &&
              std::string_view(a.name()) != "filename") {
            throw ModelError(fmt::format(
                "{}: attribute '{}' of <{}> contains '%', which only file names may contain",
                where(line_of(n)), a.name(), n.name()));
          }
        }
      }
      if (n.first_child()) {
        n = n.first_child();
        ++depth;
        continue;
      }
      while (n && !n.next_sibling()) {
        n = n.parent();
        --depth;
      }
      if (n) n = n.next_sibling();
    }
  }

  void parse() {
    std::vector<std::string> errors;
    {
      const std::lock_guard<std::mutex> lock(urdfdom_mutex());
      UrdfdomLog log;
      try {
        model_ = urdf::parseURDF(text_for_urdfdom());
      } catch (const std::exception& e) {
        log.errors.push_back(e.what());
      }
      errors = std::move(log.errors);
      // urdfdom repeats some warnings (an undefined material, once per lookup)
      for (const std::string& w : log.warnings) {
        warnings_.add(name_, fmt::format("urdfdom: {}", w));
      }
    }
    if (!model_ || !errors.empty()) {
      throw ModelError(fmt::format("{}: not a valid URDF (urdfdom could not parse it: {})", name_,
                                   errors.empty() ? "no reason given" : join(errors, "; ")));
    }
  }

  // The document urdfdom reads: without the <visual> and <collision> of links, which zwang
  // does not read (urdfdom fails a whole file on geometry it does not know), and with a name
  // for a <robot> that has none (urdfdom requires one, MuJoCo's importer does not).
  std::string text_for_urdfdom() const {
    pugi::xml_document copy;
    copy.reset(doc_);
    pugi::xml_node robot = copy.child("robot");
    if (robot && !robot.attribute("name")) robot.append_attribute("name") = "robot";
    for (pugi::xml_node link : robot.children("link")) {
      for (const char* tag : {"visual", "collision"}) {
        while (pugi::xml_node c = link.child(tag)) link.remove_child(c);
      }
    }
    std::ostringstream out;
    copy.save(out, "", pugi::format_raw);
    return out.str();
  }

  // what urdfdom lets through: a link below two joints, links cut off from the root by a cycle
  void check_tree() {
    std::map<std::string, std::string> parent_joint;
    for (const auto& j : in_document_order(model_->joints_, joints_)) {
      const auto [it, added] = parent_joint.emplace(j->child_link_name, j->name);
      if (!added) {
        throw ModelError(fmt::format(
            "{}: joint '{}': link '{}' is already the child of joint '{}'; a link has one parent "
            "joint (the joints form a loop, which URDF cannot describe)",
            where(joints_, j->name), j->name, j->child_link_name, it->second));
      }
    }
    std::vector<std::string> reached{model_->getRoot()->name};
    for (std::size_t i = 0; i < reached.size(); ++i) {
      for (const auto& child : model_->getLink(reached[i])->child_links)
        reached.push_back(child->name);
    }
    if (reached.size() < model_->links_.size()) {
      std::vector<std::string> cut;
      for (const auto& link : in_document_order(model_->links_, links_)) {
        if (std::find(reached.begin(), reached.end(), link->name) == reached.end()) {
          cut.push_back(fmt::format("'{}'", link->name));
        }
      }
      throw ModelError(fmt::format(
          "{}: links {} are not connected to the root link '{}': their joints form a cycle", name_,
          join(cut, ", "), model_->getRoot()->name));
    }
  }

  // the elements outside the supported subset, one warning per kind with its count
  void warn_ignored_elements() {
    for (pugi::xml_node n : robot_.children()) {
      const std::string_view tag = n.name();
      if (n.type() != pugi::node_element || tag == "link" || tag == "joint" || tag == "material") {
        continue;
      }
      warnings_.add(where(line_of(n)), fmt::format("<{}> ignored", tag));
    }
  }
  void warn_ignored() {
    warn_ignored_elements();
    for (const auto& link : in_document_order(model_->links_, links_)) {
      const auto e = links_.find(link->name);
      if (e == links_.end()) continue;
      for (pugi::xml_node c : e->second.node.children("collision")) {
        warnings_.add(where(line_of(c)),
                      "<collision> ignored: URDF collision geometry is not loaded");
      }
    }
    for (const auto& joint : in_document_order(model_->joints_, joints_)) {
      const auto e = joints_.find(joint->name);
      if (e == joints_.end()) continue;
      for (const char* tag : {"mimic", "safety_controller", "calibration"}) {
        for (pugi::xml_node c : e->second.node.children(tag)) {
          warnings_.add(where(line_of(c)), std::string_view(tag) == "mimic"
                                               ? "<mimic> ignored: the joint moves on its own"
                                               : fmt::format("<{}> ignored", tag));
        }
      }
    }
  }

  // depth-first from the root, children in the document order of their joints
  void add_tree() {
    const urdf::LinkConstSharedPtr root = model_->getRoot();
    const bool world_root = root->name == kWorld;
    if (world_root && options_.floating_base) {
      throw ModelError(fmt::format(
          "{}: the floating-base option needs a root link other than 'world'; this file attaches "
          "its links to the world itself (use a floating joint there instead)",
          where(links_, kWorld)));
    }
    if (world_root && root->inertial) {
      warnings_.add(where(links_, kWorld),
                    "<inertial> of link 'world' ignored: the world is fixed");
    }
    // the inertia scale of the file, for what counts as rounding (urdf_inertia.hpp)
    for (const auto& [link_name, link] : model_->links_) {
      if (link_name != kWorld && link->inertial) {
        inertia_scale_ = std::max(inertia_scale_, largest_principal_moment(tensor_of(*link)));
      }
    }
    Stack stack;
    if (world_root) {
      push_children(*root, false, stack);
    } else {
      stack.push_back({root, nullptr, options_.floating_base});
    }
    while (!stack.empty()) {
      const Pending next = stack.back();
      stack.pop_back();
      add_body(*next.link, next.joint.get(), next.moves);
      push_children(*next.link, next.moves, stack);
    }
    add_kept();
    for (const auto& [fused, at] : fused_) {
      try {
        builder_.add_fused_body(fused);
      } catch (const ModelError& e) {
        throw ModelError(fmt::format("{}: {}", at, e.what()));
      }
    }
  }

  // a link to add, the joint above it, and whether a joint moves it (it or a link above it)
  struct Pending {
    urdf::LinkConstSharedPtr link;
    urdf::JointConstSharedPtr joint;
    bool moves;
  };
  using Stack = std::vector<Pending>;

  // the link's inertia tensor about its COM in the link frame: I_link = R I Rᵀ, R the
  // inertial frame's rotation, symmetrised against rounding
  static Eigen::Matrix3d tensor_of(const urdf::Link& link) {
    const urdf::Inertial& in = *link.inertial;
    const urdf::Rotation& q = in.origin.rotation;
    const Eigen::Matrix3d r = Eigen::Quaterniond(q.w, q.x, q.y, q.z).toRotationMatrix();
    Eigen::Matrix3d i;
    i << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
    const Eigen::Matrix3d l = r * i * r.transpose();
    return 0.5 * (l + l.transpose());
  }

  // the child joints of a link, last in the document first, so the first is popped first
  void push_children(const urdf::Link& link, bool moves, Stack& stack) const {
    std::vector<urdf::JointConstSharedPtr> joints(link.child_joints.begin(),
                                                  link.child_joints.end());
    std::stable_sort(joints.begin(), joints.end(), [&](const auto& a, const auto& b) {
      return order_of(joints_, a->name) > order_of(joints_, b->name);
    });
    for (const auto& j : joints) {
      stack.push_back(
          {model_->getLink(j->child_link_name), j, moves || j->type != urdf::Joint::FIXED});
    }
  }

  // the body of a link and the joint above it (none for the root link)
  void add_body(const urdf::Link& link, const urdf::Joint* joint, bool moves) {
    const std::string at = where(links_, link.name);
    if (link.name == kWorld) {
      throw ModelError(fmt::format(
          "{}: link 'world' is not the root link; the name is reserved for the root", at));
    }
    BodySpec body{.name = link.name, .parent = kWorld};
    // its warnings, said in body order with those of its joint (add_kept())
    std::vector<std::pair<std::string, std::string>> notes;
    if (joint) {
      const urdf::Pose& origin = joint->parent_to_joint_origin_transform;
      body.parent = joint->parent_link_name;
      body.pos = {origin.position.x, origin.position.y, origin.position.z};
      body.quat = {origin.rotation.w, origin.rotation.x, origin.rotation.y, origin.rotation.z};
    }
    if (const urdf::Inertial* in = link.inertial.get()) {
      if (in->mass < 0) {
        throw ModelError(fmt::format("{}: link '{}': mass must not be negative (got {})", at,
                                     link.name, in->mass));
      }
      const Eigen::Matrix3d l = tensor_of(link);
      body.mass = in->mass;
      body.com = {in->origin.position.x, in->origin.position.y, in->origin.position.z};
      body.inertia = {l(0, 0), l(1, 1), l(2, 2), l(0, 1), l(0, 2), l(1, 2)};
      // a link that no joint moves never enters H: its inertia is not looked at
      if (moves && l.allFinite()) {
        const UrdfLinkInertia taken =
            moving_link_inertia(l, in->mass, inertia_scale_, options_.balance_inertia);
        body.inertia = taken.inertia;
        if (!taken.problem.empty()) {
          notes.emplace_back(at, fmt::format("link '{}': {}", link.name, taken.problem));
        }
      }
    }
    // MuJoCo's fusestatic: a link welded to its parent (or, without a floating base, the root
    // link to the world) is merged into the nearest link above it that a joint moves, the
    // world included, which takes no mass
    const std::string parent = joint ? joint->parent_link_name : std::string(kWorld);
    const auto above = merged_.find(parent);
    FramePose pose{body.pos, body.quat};
    if (above != merged_.end()) to_outer(above->second.second, pose.pos, pose.quat);
    const std::string owner = above != merged_.end() ? above->second.first : parent;
    const bool welded = joint ? joint->type == urdf::Joint::FIXED : !options_.floating_base;
    if (options_.fuse_static && welded) {
      merged_[link.name] = {owner, pose};
      // its centre of mass in the frame of the body that takes it: p_f + R_f c
      FramePose com{body.com, {1, 0, 0, 0}};
      to_outer(pose, com.pos, com.quat);
      fused_.push_back({{.name = link.name,
                         .body = owner,
                         .pos = pose.pos,
                         .quat = pose.quat,
                         .mass = body.mass,
                         .ipos = com.pos},
                        at});
      if (owner == kWorld) {
        for (const auto& [place, what] : notes) warnings_.add(place, what);
        return;
      }
      Kept& into = kept_[kept_index_.at(owner)];
      into.notes.insert(into.notes.end(), notes.begin(), notes.end());
      if (!(body.mass >= 1e-15)) return;
      const BodyMass m = joined({into.body.mass, into.body.com, into.body.inertia},
                                {body.mass, body.com, body.inertia}, pose);
      into.body.mass = m.mass;
      into.body.com = m.com;
      into.body.inertia = m.inertia;
      return;
    }
    body.parent = owner;
    body.pos = pose.pos;
    body.quat = pose.quat;
    kept_index_[link.name] = kept_.size();
    kept_.push_back({body, at, joint, std::move(notes)});
  }

  // the bodies that stay, with their joints, into the builder
  void add_kept() {
    for (const Kept& k : kept_) {
      for (const auto& [place, what] : k.notes) warnings_.add(place, what);
      try {
        builder_.add_body(k.body);
      } catch (const ModelError& e) {
        throw ModelError(fmt::format("{}: {}", k.at, e.what()));
      }
      if (!k.joint && options_.floating_base) {
        add_joint(k.body.name, {.name = kFloatingBase, .type = JointType::kFree}, k.at);
      }
      if (k.joint) add_urdf_joint(*k.joint);
    }
  }

  void add_urdf_joint(const urdf::Joint& joint) {
    const std::string at = where(joints_, joint.name);
    JointSpec spec{.name = joint.name, .damping = joint.dynamics ? joint.dynamics->damping : 0.0};
    spec.frictionloss = joint.dynamics ? joint.dynamics->friction : 0.0;
    switch (joint.type) {
      // a continuous joint is a revolute one without limits
      case urdf::Joint::REVOLUTE:
      case urdf::Joint::CONTINUOUS:
      case urdf::Joint::PRISMATIC:
        spec.type = joint.type == urdf::Joint::PRISMATIC ? JointType::kSlide : JointType::kHinge;
        spec.axis = {joint.axis.x, joint.axis.y, joint.axis.z};
        if (joint.type != urdf::Joint::CONTINUOUS) set_range(joint, spec, at);
        break;
      case urdf::Joint::FIXED:
        return;
      case urdf::Joint::FLOATING:
        if (joint.parent_link_name != kWorld) {
          throw ModelError(fmt::format(
              "{}: joint '{}': a floating joint must connect the root link 'world' to its child "
              "(here its parent is link '{}'); for a floating base, load with the floating-base "
              "option instead",
              at, joint.name, joint.parent_link_name));
        }
        spec.type = JointType::kFree;
        break;
      case urdf::Joint::PLANAR:
        throw ModelError(fmt::format(
            "{}: joint '{}': planar joints are not supported (model one as two prismatic joints "
            "and a revolute joint through massless links)",
            at, joint.name));
      default:
        throw ModelError(fmt::format("{}: joint '{}': unknown joint type", at, joint.name));
    }
    add_joint(joint.child_link_name, spec, at);
  }

  // revolute and prismatic: urdfdom requires a <limit>; lower and upper default to 0.  As
  // MuJoCo's importer, the joint is limited only where lower < upper (pybullet writes lower >
  // upper for "no limit")
  void set_range(const urdf::Joint& joint, JointSpec& spec, const std::string& at) {
    if (!joint.limits) {
      throw ModelError(fmt::format("{}: joint '{}': <limit> missing", at, joint.name));
    }
    spec.limited = joint.limits->lower < joint.limits->upper;
    if (spec.limited) {
      spec.range = {joint.limits->lower, joint.limits->upper};
    } else {
      const auto e = joints_.find(joint.name);
      const pugi::xml_node limit =
          e == joints_.end() ? pugi::xml_node() : e->second.node.child("limit");
      warnings_.add(where(limit ? line_of(limit) : 0),
                    "<limit> with lower >= upper: the joint is left unlimited");
    }
  }

  void add_joint(const std::string& body, const JointSpec& spec, const std::string& at) {
    try {
      builder_.add_joint(body, spec);
    } catch (const ModelError& e) {
      throw ModelError(fmt::format("{}: {}", at, e.what()));
    }
  }

  std::string_view xml_;
  TextLines lines_;
  const LoadOptions& options_;
  std::string name_;
  pugi::xml_document doc_;
  pugi::xml_node robot_;
  Elements links_, joints_;
  urdf::ModelInterfaceSharedPtr model_;
  ModelBuilder builder_;
  // the bodies to build, in order, each with the joint above it (none for the root link)
  struct Kept {
    BodySpec body;
    std::string at;
    const urdf::Joint* joint;
    std::vector<std::pair<std::string, std::string>> notes;  // warnings: file:line, what
  };
  std::vector<Kept> kept_;
  std::map<std::string, std::size_t, std::less<>> kept_index_;
  // LoadOptions::fuse_static: each merged link's body and its frame in that body's
  std::map<std::string, std::pair<std::string, FramePose>, std::less<>> merged_;
  // the merged links in the order of the walk, each with its file:line
  std::vector<std::pair<FusedBodySpec, std::string>> fused_;
  LoadWarnings warnings_;
  double inertia_scale_ = 0;  // the largest principal moment of the file's links
};

}  // namespace

LoadResult load_urdf(const std::filesystem::path& file, const LoadOptions& options) {
  return load_urdf_string(read_model_file(file, file.string()), options, file.string());
}

LoadResult load_urdf_string(std::string_view xml, const LoadOptions& options,
                            std::string_view name) {
  return UrdfReader(xml, options, name).load();
}

}  // namespace zwang
