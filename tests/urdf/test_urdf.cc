// The URDF loader: how links and joints map onto bodies and joints (checked against frames and
// tensors computed here with Eigen from the file's numbers), body order, the root link, warnings,
// the dynamics of the loaded robots against the plain RNEA reference, and every error message.
// The MuJoCo cross-check of the same robots is in urdf/test_urdf_mujoco.cc.
#include <console_bridge/console.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <algorithm>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "reference/rnea.h"
#include "test_util.h"
#include "urdf/urdf_files.h"
#include "zwang/loaders.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

Model load(const std::string& xml, const LoadOptions& options = {}) {
  return load_urdf_string(xml, options, "test.urdf").model;
}

// R = Rz(yaw) Ry(pitch) Rx(roll), the URDF convention, built from three axis rotations
Eigen::Matrix3d rpy(double roll, double pitch, double yaw) {
  return (Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ()) *
          Eigen::AngleAxisd(pitch, Eigen::Vector3d::UnitY()) *
          Eigen::AngleAxisd(roll, Eigen::Vector3d::UnitX()))
      .toRotationMatrix();
}

Eigen::Matrix3d body_rotation(const Model& m, int b) {
  const double* q = &m.body_quat[4 * b];
  return Eigen::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
}

Eigen::Matrix3d body_inertia(const Model& m, int b) {
  const double* i = &m.body_inertia[6 * b];
  Eigen::Matrix3d t;
  t << i[0], i[3], i[4], i[3], i[1], i[5], i[4], i[5], i[2];
  return t;
}

Eigen::Vector3d vec3(const std::vector<double>& v, int index) {
  return Eigen::Vector3d(v[3 * index], v[3 * index + 1], v[3 * index + 2]);
}

// ---------------------------------------------------------------------------------------------
// mapping

constexpr const char* kTwoLinks = R"(<robot name="two">
  <link name="base">
    <inertial>
      <origin xyz="0.1 -0.2 0.3" rpy="0.3 -0.4 1.1"/>
      <mass value="2.5"/>
      <inertia ixx="0.04" iyy="0.05" izz="0.03" ixy="0.004" ixz="-0.002" iyz="0.001"/>
    </inertial>
  </link>
  <link name="arm">
    <inertial>
      <origin xyz="0.2 0 0" rpy="0 1.2 0"/>
      <mass value="1"/>
      <inertia ixx="0.01" iyy="0.02" izz="0.015" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="slider">
    <inertial>
      <mass value="0.5"/>
      <inertia ixx="0.001" iyy="0.001" izz="0.001" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="tip"/>
  <joint name="hinge" type="revolute">
    <parent link="base"/>
    <child link="arm"/>
    <origin xyz="0.5 0.6 -0.7" rpy="0.7 -1.3 2.9"/>
    <axis xyz="0 3 4"/>
    <limit lower="-1.25" upper="0.5" effort="1" velocity="1"/>
    <dynamics damping="0.75"/>
  </joint>
  <joint name="slide" type="prismatic">
    <parent link="arm"/>
    <child link="slider"/>
    <axis xyz="0 0 -2"/>
    <limit lower="-0.1" upper="0.3" effort="1" velocity="1"/>
  </joint>
  <joint name="spin" type="continuous">
    <parent link="slider"/>
    <child link="tip"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>
  </joint>
</robot>)";

TEST(UrdfMapping, FramesInertiasAndJoints) {
  // spin's child is massless and a leaf: it must carry mass to move, so it is welded here
  std::string xml = kTwoLinks;
  xml.replace(xml.find("type=\"continuous\""), 17, "type=\"fixed\"");
  const Model m = load(xml);
  ASSERT_EQ(m.nbody, 5);
  EXPECT_EQ(m.body_name, (std::vector<std::string>{"world", "base", "arm", "slider", "tip"}));
  EXPECT_EQ(m.body_parentid, (std::vector<int>{-1, 0, 1, 2, 3}));

  // the root link is welded at the world origin
  EXPECT_EQ(m.body_jntnum[1], 0);
  EXPECT_EQ(vec3(m.body_pos, 1), Eigen::Vector3d::Zero());
  EXPECT_LE((body_rotation(m, 1) - Eigen::Matrix3d::Identity()).norm(), 1e-15);

  // joint origin: the child frame in the parent frame, rpy as Rz Ry Rx
  EXPECT_EQ(vec3(m.body_pos, 2), Eigen::Vector3d(0.5, 0.6, -0.7));
  EXPECT_LE((body_rotation(m, 2) - rpy(0.7, -1.3, 2.9)).norm(), 1e-15);

  // inertial: COM at the origin xyz, tensor R I Rᵀ in the link frame
  Eigen::Matrix3d i;
  i << 0.04, 0.004, -0.002, 0.004, 0.05, 0.001, -0.002, 0.001, 0.03;
  const Eigen::Matrix3d r = rpy(0.3, -0.4, 1.1);
  EXPECT_EQ(m.body_mass[1], 2.5);
  EXPECT_EQ(vec3(m.body_ipos, 1), Eigen::Vector3d(0.1, -0.2, 0.3));
  EXPECT_LE((body_inertia(m, 1) - r * i * r.transpose()).norm(), 1e-15 * i.norm());
  const Eigen::Matrix3d r2 = rpy(0, 1.2, 0);
  EXPECT_LE(
      (body_inertia(m, 2) - r2 * Eigen::Vector3d(0.01, 0.02, 0.015).asDiagonal() * r2.transpose())
          .norm(),
      1e-17);
  // no <origin>: the inertial frame is the link frame
  EXPECT_EQ(body_inertia(m, 3), Eigen::Matrix3d(Eigen::Vector3d::Constant(0.001).asDiagonal()));
  EXPECT_EQ(m.body_mass[4], 0);

  // revolute → limited hinge, prismatic → limited slide, both anchored at the child origin with
  // the normalised axis; fixed → no joint
  ASSERT_EQ(m.njnt, 2);
  EXPECT_EQ(m.jnt_name, (std::vector<std::string>{"hinge", "slide"}));
  EXPECT_EQ(m.jnt_type, (std::vector<JointType>{JointType::kHinge, JointType::kSlide}));
  EXPECT_EQ(m.jnt_bodyid, (std::vector<int>{2, 3}));
  EXPECT_EQ(m.jnt_pos, (std::vector<double>(6, 0.0)));
  EXPECT_EQ(vec3(m.jnt_axis, 0), Eigen::Vector3d(0, 0.6, 0.8));
  EXPECT_EQ(vec3(m.jnt_axis, 1), Eigen::Vector3d(0, 0, -1));
  EXPECT_EQ(m.jnt_limited, (std::vector<int>{1, 1}));
  EXPECT_EQ(m.jnt_range, (std::vector<double>{-1.25, 0.5, -0.1, 0.3}));
  EXPECT_EQ(m.dof_damping, (std::vector<double>{0.75, 0}));
  EXPECT_EQ(m.nq, 2);
  EXPECT_EQ(m.nv, 2);
  EXPECT_EQ(m.nu, 0);
  EXPECT_EQ(m.qpos0, (std::vector<double>{0, 0}));
}

TEST(UrdfMapping, ContinuousIsAnUnlimitedHinge) {
  // spin's child gets a mass so that the hinge is allowed
  std::string xml = kTwoLinks;
  xml.replace(xml.find("<link name=\"tip\"/>"), 18,
              R"(<link name="tip"><inertial><mass value="0.1"/>
                 <inertia ixx="1e-4" iyy="1e-4" izz="1e-4" ixy="0" ixz="0" iyz="0"/></inertial>
                 </link>)");
  const Model m = load(xml);
  ASSERT_EQ(m.njnt, 3);
  EXPECT_EQ(m.jnt_type[2], JointType::kHinge);
  EXPECT_EQ(m.jnt_limited[2], 0);
  // URDF's default axis
  EXPECT_EQ(vec3(m.jnt_axis, 2), Eigen::Vector3d(1, 0, 0));
}

// ---------------------------------------------------------------------------------------------
// order and root

TEST(UrdfOrder, DepthFirstInTheDocumentOrderOfTheJoints) {
  const Model m = load_urdf(urdf_file("tree")).model;
  // tree.urdf lists its links in another order: the joints' order decides
  EXPECT_EQ(m.body_name, (std::vector<std::string>{
                             "world", "pedestal", "torso", "head", "left_shoulder_yaw",
                             "left_upper", "left_forearm", "right_upper", "right_forearm"}));
  EXPECT_EQ(m.body_parentid, (std::vector<int>{-1, 0, 1, 2, 2, 4, 5, 2, 7}));
  EXPECT_EQ(m.jnt_name, (std::vector<std::string>{"waist", "neck", "left_shoulder_yaw_joint",
                                                  "left_shoulder_pitch", "left_elbow",
                                                  "right_shoulder", "right_extend"}));
  for (int j = 0; j < m.njnt; ++j) {
    EXPECT_EQ(m.jnt_qposadr[j], j);
    EXPECT_EQ(m.jnt_dofadr[j], j);
  }
  // the root link "world" is zwang's world: pedestal hangs from it, welded, at its joint origin
  EXPECT_EQ(m.body_jntnum[1], 0);
  EXPECT_EQ(vec3(m.body_pos, 1), Eigen::Vector3d(0.1, -0.2, 0.3));
  EXPECT_LE((body_rotation(m, 1) - rpy(0, 0, 0.4)).norm(), 1e-15);
}

TEST(UrdfRoot, WeldedUnlessFloatingBase) {
  const Model welded = load_urdf(urdf_file("mobile_base")).model;
  EXPECT_EQ(welded.body_name[1], "chassis");
  EXPECT_EQ(welded.body_jntnum[1], 0);
  EXPECT_EQ(welded.nq, 5);

  const Model floating = load_urdf(urdf_file("mobile_base"), {.floating_base = true}).model;
  ASSERT_EQ(floating.njnt, 6);
  EXPECT_EQ(floating.jnt_name[0], "floating_base");
  EXPECT_EQ(floating.jnt_type[0], JointType::kFree);
  EXPECT_EQ(floating.jnt_bodyid[0], 1);
  EXPECT_EQ(floating.nq, 12);
  EXPECT_EQ(floating.nv, 11);
  // the free joint's qpos0 is the root frame as built: the world origin
  EXPECT_EQ(std::vector<double>(floating.qpos0.begin(), floating.qpos0.begin() + 7),
            (std::vector<double>{0, 0, 0, 1, 0, 0, 0}));
}

// "<link name="world"/>" and a floating joint named floating_base to the root link
std::string with_world_link(std::string xml, const std::string& root) {
  const std::size_t at = xml.find('>', xml.find("<robot")) + 1;
  xml.insert(at, fmt::format(R"(
  <link name="world"/>
  <joint name="floating_base" type="floating">
    <parent link="world"/>
    <child link="{}"/>
  </joint>)",
                             root));
  return xml;
}

TEST(UrdfRoot, FloatingJointFromWorldEqualsTheOption) {
  const Model option = load_urdf(urdf_file("mobile_base"), {.floating_base = true}).model;
  const Model joint = load(with_world_link(read_text(urdf_file("mobile_base")), "chassis"));
  EXPECT_EQ(joint.body_name, option.body_name);
  EXPECT_EQ(joint.body_parentid, option.body_parentid);
  EXPECT_EQ(joint.body_pos, option.body_pos);
  EXPECT_EQ(joint.body_quat, option.body_quat);
  EXPECT_EQ(joint.body_mass, option.body_mass);
  EXPECT_EQ(joint.body_ipos, option.body_ipos);
  EXPECT_EQ(joint.body_inertia, option.body_inertia);
  EXPECT_EQ(joint.jnt_name, option.jnt_name);
  EXPECT_EQ(joint.jnt_type, option.jnt_type);
  EXPECT_EQ(joint.jnt_axis, option.jnt_axis);
  EXPECT_EQ(joint.dof_damping, option.dof_damping);
  EXPECT_EQ(joint.qpos0, option.qpos0);
}

// ---------------------------------------------------------------------------------------------
// warnings

TEST(UrdfWarnings, OneLinePerKindOfIgnoredElement) {
  const std::string xml = R"(<robot name="r">
  <link name="base">
    <visual><geometry><box size="1 1 1"/></geometry><material name="grey"/></visual>
    <collision><geometry><box size="1 1 1"/></geometry></collision>
    <inertial>
      <mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <link name="a">
    <collision><geometry><box size="1 1 1"/></geometry></collision>
    <collision><geometry><sphere radius="1"/></geometry></collision>
    <inertial>
      <mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <material name="grey"><color rgba="0.5 0.5 0.5 1"/></material>
  <joint name="j" type="continuous">
    <parent link="base"/><child link="a"/>
    <dynamics damping="0.1" friction="0.2"/>
    <mimic joint="other"/>
    <safety_controller k_velocity="1"/>
  </joint>
  <transmission name="t1"><type>SimpleTransmission</type></transmission>
  <gazebo reference="a"/>
  <gazebo reference="base"/>
  <transmission name="t2"><type>SimpleTransmission</type></transmission>
  <gazebo/>
</robot>)";
  const LoadResult r = load_urdf_string(xml, {}, "w.urdf");
  EXPECT_EQ(r.warnings, (std::vector<std::string>{
                            "w.urdf:25: <transmission> ignored (2 places, the last at w.urdf:28)",
                            "w.urdf:26: <gazebo> ignored (3 places, the last at w.urdf:29)",
                            "w.urdf:4: <collision> ignored: URDF collision geometry is not loaded "
                            "(3 places, the last at w.urdf:12)",
                            "w.urdf:22: <mimic> ignored: the joint moves on its own",
                            "w.urdf:23: <safety_controller> ignored",
                        }));
  EXPECT_EQ(r.model.dof_damping, (std::vector<double>{0.1}));
  EXPECT_EQ(r.model.dof_frictionloss, (std::vector<double>{0.2}));
}

// zwang reads no <visual> or <collision>, and urdfdom never sees them: geometry it cannot read
// (pybullet's "plane", a mesh scale of four numbers) and undefined materials say nothing
TEST(UrdfWarnings, VisualAndCollisionNeverReachUrdfdom) {
  const LoadResult r = load_urdf_string(R"(<robot name="r">
  <link name="base">
    <visual><geometry><mesh filename="a.obj" scale="1 1 1 1"/></geometry>
      <material name="nope"/></visual>
    <collision><geometry><plane normal="0 0 1"/></geometry></collision>
    <inertial><mass value="1"/>
      <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
  </link>
</robot>)",
                                        {}, "m.urdf");
  EXPECT_EQ(r.warnings,
            std::vector<std::string>{
                "m.urdf:5: <collision> ignored: URDF collision geometry is not loaded"});
  EXPECT_EQ(r.model.body_mass, (std::vector<double>{0, 1}));
}

// the test robots are clean: their joint limits are enforced, so nothing is said about them
TEST(UrdfWarnings, NoneForTheTestRobots) {
  for (const char* robot : kRobots) {
    const LoadResult r = load_urdf(urdf_file(robot));
    const auto limited = std::count(r.model.jnt_limited.begin(), r.model.jnt_limited.end(), 1);
    ASSERT_GT(limited, 0) << robot;
    EXPECT_EQ(r.warnings, std::vector<std::string>{}) << robot;
  }
}

// ---------------------------------------------------------------------------------------------
// files

TEST(UrdfFiles, FileStringAndLoadModelAgree) {
  const std::filesystem::path file = urdf_file("serial_arm");
  const Model a = load_urdf(file).model;
  const Model b = load_urdf_string(read_text(file)).model;
  const Model c = load_model(file).model;
  for (const Model* m : {&b, &c}) {
    EXPECT_EQ(m->body_name, a.body_name);
    EXPECT_EQ(m->body_pos, a.body_pos);
    EXPECT_EQ(m->body_quat, a.body_quat);
    EXPECT_EQ(m->body_inertia, a.body_inertia);
    EXPECT_EQ(m->jnt_name, a.jnt_name);
  }
  EXPECT_EQ(load_model(urdf_file("mobile_base"), {.floating_base = true}).model.nq, 12);
}

// ---------------------------------------------------------------------------------------------
// dynamics against the reference

// H, qfrc_bias and q̈ of a loaded robot against the plain RNEA on the same Model at 20 random
// states: checks that what the loader builds is a model the engine runs correctly (the frames and
// tensors themselves are checked above and against MuJoCo)
void expect_matches_reference(Model m, const std::string& label) {
  constexpr int kStates = 20;
  // the reference has no constraint rows
  m.disableflags |= kDisableConstraint;
  constexpr double kTolerance = 1e-9;
  std::mt19937 rng(11);
  const reference::Rnea ref(m);
  Simulator<double> sim(m, kStates);
  const std::vector<RandomState> states = set_random_states(sim, rng);
  sim.forward();
  ASSERT_TRUE(sim.failures().empty()) << label << ": " << sim.failures().front().message();
  for (int i = 0; i < kStates; ++i) {
    const Eigen::VectorXd& q = states[i].qpos;
    const Eigen::VectorXd& qd = states[i].qvel;
    const Eigen::MatrixXd h = unpack(get(sim.batch().qM(), i), m.nv);
    EXPECT_LE(relative_error(h, ref.mass_matrix(q)), kTolerance) << label << " state " << i;
    EXPECT_LE(relative_error(get(sim.batch().qfrc_bias(), i), ref.bias(q, qd)), kTolerance)
        << label << " state " << i;
    EXPECT_LE(relative_error(get(sim.batch().qacc(), i),
                             ref.forward_dynamics(q, qd, Eigen::VectorXd::Zero(0))),
              kTolerance)
        << label << " state " << i;
  }
}

TEST(UrdfDynamics, MatchesTheReferenceRnea) {
  for (const char* robot : kRobots) {
    expect_matches_reference(load_urdf(urdf_file(robot)).model, robot);
  }
  expect_matches_reference(load_urdf(urdf_file("mobile_base"), {.floating_base = true}).model,
                           "mobile_base (floating base)");
}

TEST(UrdfDynamics, MasslessLinkOnAJointWithMassBelow) {
  const std::string xml = R"(<robot name="r">
  <link name="base"/>
  <link name="yaw"/>
  <link name="arm">
    <inertial>
      <origin xyz="0.3 0 0"/>
      <mass value="1"/>
      <inertia ixx="0.01" iyy="0.02" izz="0.02" ixy="0" ixz="0" iyz="0"/>
    </inertial>
  </link>
  <joint name="j1" type="continuous">
    <parent link="base"/><child link="yaw"/><axis xyz="0 0 1"/>
  </joint>
  <joint name="j2" type="continuous">
    <parent link="yaw"/><child link="arm"/><origin xyz="0.1 0 0" rpy="0.2 0 0"/>
    <axis xyz="0 1 0"/>
  </joint>
</robot>)";
  const Model m = load(xml);
  EXPECT_EQ(m.body_mass, (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(m.nv, 2);
  // MuJoCo refuses a massless body on a joint, so the reference alone checks this one
  expect_matches_reference(m, "massless link on a joint");
}

// ---------------------------------------------------------------------------------------------
// leniency: what URDF importers take (their dynamics: urdf/test_urdf_pinocchio.cc against
// Pinocchio, urdf/test_urdf_mujoco.cc against MuJoCo 2.2.2)

// a robot with links base and a, and `joint` between them
std::string one_joint(const std::string& joint, const std::string& inertial_a = "") {
  const std::string inertial =
      inertial_a.empty()
          ? R"(<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>)"
          : inertial_a;
  return fmt::format(R"(<robot name="r">
  <link name="base"/>
  <link name="a">{}</link>
  {}
</robot>)",
                     inertial, joint);
}

// the warnings of a file of tests/data/urdf without its path
std::vector<std::string> warnings_of(const std::string& robot, const LoadOptions& options = {}) {
  const std::string path = urdf_file(robot).string();
  std::vector<std::string> out;
  for (const std::string& w : load_urdf(urdf_file(robot), options).warnings) {
    out.push_back(w.starts_with(path) ? robot + w.substr(path.size()) : w);
  }
  return out;
}

// the file's tensor of a link, R I Rᵀ in the link frame, from the numbers of the file
Eigen::Matrix3d file_tensor(const Eigen::Vector3d& diagonal, const Eigen::Vector3d& products,
                            const Eigen::Matrix3d& r) {
  Eigen::Matrix3d i;
  i << diagonal.x(), products.x(), products.y(), products.x(), diagonal.y(), products.z(),
      products.y(), products.z(), diagonal.z();
  return r * i * r.transpose();
}

// pybullet's mass-0 base is static and says nothing; a mass-0 link with an inertia welded to a
// moving link says so and keeps it (as Pinocchio and MuJoCo do); lower > upper is no limit
TEST(UrdfLenient, PybulletConventions) {
  EXPECT_EQ(warnings_of("pybullet_base"),
            (std::vector<std::string>{
                "pybullet_base:54: <limit> with lower >= upper: the joint is left unlimited",
                "pybullet_base:35: link 'flange': inertia is not a rigid body's (principal moments "
                "0.001 0.0015 0.002: it has no mass); used as given"}));
  const Model m = load_urdf(urdf_file("pybullet_base")).model;
  const int base = m.id(ObjType::kBody, "base"), flange = m.id(ObjType::kBody, "flange");
  EXPECT_EQ(m.body_mass[base], 0);
  EXPECT_EQ(body_inertia(m, base), Eigen::Vector3d(0.05, 0.06, 0.03).asDiagonal().toDenseMatrix());
  EXPECT_EQ(m.body_mass[flange], 0);
  EXPECT_EQ(body_inertia(m, flange),
            Eigen::Vector3d(0.001, 0.002, 0.0015).asDiagonal().toDenseMatrix());
  EXPECT_EQ(m.jnt_limited, (std::vector<int>{1, 0, 1}));
  expect_matches_reference(m, "pybullet_base");
}

// A + B < C: one warning per moving link, the tensor as given; or MuJoCo's balanced one
TEST(UrdfLenient, TriangleInequalityOneWarningPerLink) {
  EXPECT_EQ(warnings_of("triangle_inequality"),
            (std::vector<std::string>{
                "triangle_inequality:12: link 'arm': inertia is not a rigid body's (principal "
                "moments 0.001 0.002 0.01: A + B < C); used as given",
                "triangle_inequality:19: link 'forearm': inertia is not a rigid body's (principal "
                "moments 0.000369901 0.00181077 0.00231933: A + B < C); used as given"}));
  const Model given = load_urdf(urdf_file("triangle_inequality")).model;
  const Eigen::Matrix3d arm = file_tensor({0.001, 0.002, 0.01}, {0, 0, 0}, rpy(0.3, 0.2, 0.1));
  EXPECT_LE((body_inertia(given, given.id(ObjType::kBody, "arm")) - arm).norm(), 1e-17);
  expect_matches_reference(given, "triangle_inequality");

  EXPECT_EQ(warnings_of("triangle_inequality", {.balance_inertia = true}),
            (std::vector<std::string>{
                "triangle_inequality:12: link 'arm': inertia is not a rigid body's (principal "
                "moments 0.001 0.002 0.01: A + B < C); balanced (balance_inertia): each principal "
                "moment 0.00433333",
                "triangle_inequality:19: link 'forearm': inertia is not a rigid body's (principal "
                "moments 0.000369901 0.00181077 0.00231933: A + B < C); balanced "
                "(balance_inertia): each principal moment 0.0015"}));
  const Model balanced =
      load_urdf(urdf_file("triangle_inequality"), {.balance_inertia = true}).model;
  EXPECT_LE((body_inertia(balanced, balanced.id(ObjType::kBody, "arm")) -
             0.013 / 3 * Eigen::Matrix3d::Identity())
                .norm(),
            1e-17);
}

// rounding noise in a tensor: set to 0 without a word, the tensor moved by the noise alone
TEST(UrdfLenient, RoundingNoiseSetToZeroSilently) {
  EXPECT_EQ(warnings_of("rounding_noise"), std::vector<std::string>{});
  const Model m = load_urdf(urdf_file("rounding_noise")).model;
  const Eigen::Matrix3d ankle = body_inertia(m, m.id(ObjType::kBody, "ankle"));
  const Eigen::Matrix3d ankle_file = file_tensor({0, 0, 0}, {0, 1.35525e-20, 0}, rpy(0, 0, 0));
  EXPECT_LE((ankle - ankle_file).norm(), 2e-20);
  EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(ankle).eigenvalues()[0], -1e-35);
  const Eigen::Matrix3d rod = body_inertia(m, m.id(ObjType::kBody, "rod"));
  const Eigen::Matrix3d rod_file = file_tensor({0, 0.02, 0.02}, {2e-12, 0, 0}, rpy(0, 0.2, 0));
  EXPECT_LE((rod - rod_file).norm(), 1e-17);
  EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(rod).eigenvalues()[0], -1e-17);
  expect_matches_reference(m, "rounding_noise");

  // beyond the tolerance (1e-12 of the file's largest moment) a negative moment is no noise
  const std::string inertia = R"(<inertial><origin xyz="0.2 0 0"/><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0.0100001" ixz="0" iyz="0"/></inertial>)";
  const LoadResult r = load_urdf_string(
      one_joint(R"(<joint name="j" type="continuous"><parent link="base"/><child link="a"/>
                   <axis xyz="0 0 1"/></joint>)",
                inertia),
      {}, "n.urdf");
  EXPECT_EQ(r.warnings, (std::vector<std::string>{
                            "n.urdf:3: link 'a': inertia is not a rigid body's (principal moments "
                            "-1e-07 0.01 0.0200001: a principal moment is negative); used as "
                            "given"}));
}

// massless links welded between moving ones, or moved by a joint with mass below: no warning
TEST(UrdfLenient, MasslessLinks) {
  for (const char* robot : {"massless_fixed_chain", "massless_universal"}) {
    EXPECT_EQ(warnings_of(robot), std::vector<std::string>{}) << robot;
    expect_matches_reference(load_urdf(urdf_file(robot)).model, robot);
  }
}

// a spherical pendulum of two hinges through a massless link, a point mass hanging at qpos0 on
// the first axis: H is singular there and nowhere near it, so the model loads
TEST(UrdfLenient, SingularAtQpos0Only) {
  const Model m = load(R"(<robot name="r">
  <link name="base"/><link name="cross"/>
  <link name="bob"><inertial><origin xyz="0 0 -0.5"/><mass value="1"/>
    <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="yaw" type="continuous"><parent link="base"/><child link="cross"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="pitch" type="continuous"><parent link="cross"/><child link="bob"/>
    <axis xyz="1 0 0"/></joint>
</robot>)");
  EXPECT_EQ(m.nv, 2);
  expect_matches_reference(m, "spherical pendulum");
}

// a <limit> with lower >= upper (pybullet's lower > upper, urdfdom's 0 0 when both are left
// out): no limit, as MuJoCo's importer has it; one line for all
TEST(UrdfLenient, LimitWithLowerNotBelowUpper) {
  const LoadResult r = load_urdf_string(R"(<robot name="r">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"><inertial><mass value="1"/>
    <inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="slide" type="prismatic"><parent link="base"/><child link="a"/>
    <limit lower="0.5" upper="-0.5" effort="1" velocity="1"/></joint>
  <joint name="hinge" type="revolute"><parent link="a"/><child link="b"/>
    <limit effort="1" velocity="1"/></joint>
</robot>)",
                                        {}, "l.urdf");
  EXPECT_EQ(r.model.jnt_limited, (std::vector<int>{0, 0}));
  EXPECT_EQ(r.warnings,
            std::vector<std::string>{"l.urdf:8: <limit> with lower >= upper: the joint is left "
                                     "unlimited (2 places, the last at l.urdf:10)"});
}

// what MuJoCo's importer takes and urdfdom does not: a robot without links (ROS's empty
// description, pybullet's deformable body) is the world alone; a robot without a name
TEST(UrdfLenient, EmptyAndNamelessRobots) {
  const LoadResult empty = load_urdf_string(R"(<robot name="r">
  <deformable name="torus"/>
</robot>)",
                                            {}, "e.urdf");
  EXPECT_EQ(empty.model.nbody, 1);
  EXPECT_EQ(empty.warnings, (std::vector<std::string>{
                                "e.urdf:1: the robot has no links: the model is the world alone",
                                "e.urdf:2: <deformable> ignored"}));
  const Model nameless = load(R"(<robot><link name="a"/></robot>)");
  EXPECT_EQ(nameless.body_name, (std::vector<std::string>{"world", "a"}));
}

// ---------------------------------------------------------------------------------------------
// errors

struct ErrorCase {
  std::string name;
  std::string xml;
  LoadOptions options;
  std::vector<std::string> expected;  // substrings of the message
};

void PrintTo(const ErrorCase& c, std::ostream* os) {
  *os << c.name;
}

constexpr const char* kFixed =
    R"(<joint name="j" type="fixed"><parent link="base"/><child link="a"/></joint>)";

std::vector<ErrorCase> error_cases() {
  const std::string inertia =
      R"(<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>)";
  return {
      {"malformed_xml",
       "<robot name=\"r\">\n  <link name=\"a\">\n</robot>\n",
       {},
       {"bad.urdf:3: malformed XML ("}},
      {"not_a_robot",
       "<robt name=\"r\"><link name=\"a\"/></robt>",
       {},
       {"bad.urdf: not a valid URDF (urdfdom could not parse it: ",
        "Could not find the 'robot' element"}},
      {"unknown_joint_type",
       one_joint(R"(<joint name="j" type="hinge"><parent link="base"/><child link="a"/></joint>)"),
       {},
       {"bad.urdf: not a valid URDF", "Joint [j] has no known type [hinge]"}},
      {"number_not_a_number",
       one_joint(kFixed, R"(<inertial><mass value="1x"/>)" + inertia + "</inertial>"),
       {},
       {"bad.urdf: not a valid URDF", "mass [1x] is not a float"}},
      {"number_nan",
       one_joint(kFixed,
                 R"(<inertial><origin xyz="nan 0 0"/><mass value="1"/>)" + inertia + "</inertial>"),
       {},
       {"bad.urdf: not a valid URDF", "Unable to parse component [nan] to a double"}},
      {"number_out_of_range",
       one_joint(R"(<joint name="j" type="fixed"><parent link="base"/><child link="a"/>
                    <origin xyz="1e999 0 0"/></joint>)"),
       {},
       {"bad.urdf: not a valid URDF", "Unable to parse component [1e999] to a double"}},
      {"number_too_few",
       one_joint(R"(<joint name="j" type="fixed"><parent link="base"/><child link="a"/>
                    <origin xyz="1 2"/></joint>)"),
       {},
       {"bad.urdf: not a valid URDF", "Parser found 2 elements but 3 expected",
        "Malformed parent origin element for joint [j]"}},
      // overflows to inf in R I Rᵀ
      {"inertia_not_finite",
       one_joint(kFixed,
                 R"(<inertial><origin rpy="0 0 0.785"/><mass value="1"/>
         <inertia ixx="1e308" iyy="1e308" izz="1e308" ixy="1e308" ixz="0" iyz="0"/></inertial>)"),
       {},
       {"bad.urdf:3: body 'a': inertia is not finite"}},
      {"joint_without_parent",
       one_joint(R"(<joint name="j" type="fixed"><child link="a"/></joint>)"),
       {},
       {"bad.urdf: not a valid URDF",
        "Joint [j] is missing a parent and/or child link specification"}},
      {"joint_without_name",
       one_joint(R"(<joint type="fixed"><parent link="base"/><child link="a"/></joint>)"),
       {},
       {"bad.urdf: not a valid URDF", "unnamed joint found"}},
      {"revolute_without_limit",
       one_joint(R"(<joint name="j" type="revolute"><parent link="base"/><child link="a"/>
                    </joint>)"),
       {},
       {"bad.urdf: not a valid URDF", "Joint [j] is of type REVOLUTE but it does not specify"}},
      // urdfdom logs this one and goes on with a massless link
      {"inertial_without_inertia",
       one_joint(kFixed, R"(<inertial><mass value="1"/></inertial>)"),
       {},
       {"bad.urdf: not a valid URDF", "Inertial element must have inertia element"}},
      {"unknown_parent_link",
       one_joint(R"(<joint name="j" type="fixed"><parent link="nope"/><child link="a"/></joint>)"),
       {},
       {"bad.urdf: not a valid URDF", "parent link [nope] of joint [j] not found"}},
      {"duplicate_link",
       R"(<robot name="r"><link name="a"/><link name="a"/></robot>)",
       {},
       {"bad.urdf: not a valid URDF", "link 'a' is not unique"}},
      {"two_roots",
       R"(<robot name="r"><link name="a"/><link name="b"/></robot>)",
       {},
       {"bad.urdf: not a valid URDF", "Two root links found"}},
      {"cycle_without_root",
       R"(<robot name="r"><link name="a"/><link name="b"/>
  <joint name="j1" type="fixed"><parent link="a"/><child link="b"/></joint>
  <joint name="j2" type="fixed"><parent link="b"/><child link="a"/></joint>
</robot>)",
       {},
       {"bad.urdf: not a valid URDF", "No root link found"}},
      {"cycle_cut_off_from_the_root",
       R"(<robot name="r"><link name="base"/><link name="b"/><link name="c"/>
  <joint name="j1" type="fixed"><parent link="b"/><child link="c"/></joint>
  <joint name="j2" type="fixed"><parent link="c"/><child link="b"/></joint>
</robot>)",
       {},
       {"bad.urdf: links 'b', 'c' are not connected to the root link 'base': their joints form a "
        "cycle"}},
      {"loop_through_two_parents",
       R"(<robot name="r"><link name="base"/><link name="b"/><link name="c"/>
  <joint name="j1" type="fixed"><parent link="base"/><child link="b"/></joint>
  <joint name="j2" type="fixed"><parent link="base"/><child link="c"/></joint>
  <joint name="j3" type="fixed"><parent link="b"/><child link="c"/></joint>
</robot>)",
       {},
       {"bad.urdf:4: joint 'j3': link 'c' is already the child of joint 'j2'"}},
      {"planar_joint",
       one_joint(R"(<joint name="j" type="planar"><parent link="base"/><child link="a"/>
                    <limit effort="1" velocity="1"/></joint>)"),
       {},
       {"bad.urdf:4: joint 'j': planar joints are not supported"}},
      {"floating_joint_below_the_root",
       one_joint(R"(<joint name="j" type="floating"><parent link="base"/><child link="a"/>
                    </joint>)"),
       {},
       {"bad.urdf:4: joint 'j': a floating joint must connect the root link 'world' to its child "
        "(here its parent is link 'base')"}},
      {"floating_base_option_with_a_world_link",
       R"(<robot name="r">
  <link name="world"/>
  <link name="a"><inertial><mass value="1"/>)" +
           inertia + R"(</inertial></link>
  <joint name="j" type="fixed"><parent link="world"/><child link="a"/></joint>
</robot>)",
       {.floating_base = true},
       {"bad.urdf:2: the floating-base option needs a root link other than 'world'"}},
      {"world_link_not_at_the_root",
       R"(<robot name="r">
  <link name="base"/>
  <link name="world"/>
  <joint name="j" type="fixed"><parent link="base"/><child link="world"/></joint>
</robot>)",
       {},
       {"bad.urdf:3: link 'world' is not the root link"}},
      {"negative_mass",
       one_joint(kFixed, R"(<inertial><mass value="-1"/>)" + inertia + "</inertial>"),
       {},
       {"bad.urdf:3: link 'a': mass must not be negative (got -1)"}},
      // an inertia that is no rigid body's is taken as given, but here H = I_zz < 0
      {"mass_matrix_not_positive_definite",
       one_joint(R"(<joint name="j" type="continuous"><parent link="base"/><child link="a"/>
                    <axis xyz="0 0 1"/></joint>)",
                 R"(<inertial><mass value="1"/>
                    <inertia ixx="0.1" iyy="0.1" izz="-0.05" ixy="0" ixz="0" iyz="0"/></inertial>)"),
       {},
       {"bad.urdf:5: joint 'j': H is not positive definite",
        "an inertia on body 'a' or below it is not positive semidefinite"}},
      {"zero_axis",
       one_joint(R"(<joint name="j" type="continuous"><parent link="base"/><child link="a"/>
                    <axis xyz="0 0 0"/></joint>)"),
       {},
       {"bad.urdf:4: joint 'j': axis has zero length"}},
      {"negative_damping",
       one_joint(R"(<joint name="j" type="continuous"><parent link="base"/><child link="a"/>
                    <dynamics damping="-1"/></joint>)"),
       {},
       {"bad.urdf:4: joint 'j': damping, armature and stiffness must be non-negative"}},
      {"massless_moving_leaf",
       one_joint(R"(<joint name="j" type="continuous"><parent link="base"/><child link="a"/>
                    </joint>)",
                 "<!-- no inertial -->"),
       {},
       {"bad.urdf:4: joint 'j': H is singular: the joint has no inertia, as nothing it moves "
        "(body 'a' and the bodies below it) has mass, or inertia about its axis"}},
      // a point mass on its own joint's axis: nothing turns
      {"point_mass_on_the_axis",
       one_joint(R"(<joint name="j" type="continuous"><parent link="base"/><child link="a"/>
                    </joint>)",
                 R"(<inertial><mass value="1"/>
                    <inertia ixx="0" iyy="0" izz="0" ixy="0" ixz="0" iyz="0"/></inertial>)"),
       {},
       {"bad.urdf:5: joint 'j': H is singular"}},
      // two hinges about one axis through a massless link: the second adds no motion of its own
      {"two_hinges_about_one_axis",
       R"(<robot name="r">
  <link name="base"/><link name="m"/>
  <link name="a"><inertial><origin xyz="0.3 0 0"/><mass value="1"/>)" +
           inertia + R"(</inertial></link>
  <joint name="j1" type="continuous"><parent link="base"/><child link="m"/>
    <axis xyz="0 0 1"/></joint>
  <joint name="j2" type="continuous"><parent link="m"/><child link="a"/>
    <axis xyz="0 0 1"/></joint>
</robot>)",
       {},
       {"bad.urdf:4: joint 'j1': H is singular at qpos0 and at a second configuration",
        "nothing on body 'm' or below it resists this joint's motion"}},
      // pybullet's static base, given a floating base
      {"floating_base_without_mass",
       R"(<robot name="r"><link name="base"><inertial><mass value="0"/>)" + inertia +
           R"(</inertial></link></robot>)",
       {.floating_base = true},
       {"bad.urdf: joint 'floating_base': H is singular", "(dof 0 of the free joint)",
        "root link 'base' has no mass: in pybullet's convention such a base is static; load "
        "without the floating-base option"}},
  };
}

class UrdfErrors : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(UrdfErrors, MessageSaysWhereAndWhat) {
  const ErrorCase& c = GetParam();
  const std::string message = error_of([&] { load_urdf_string(c.xml, c.options, "bad.urdf"); });
  for (const std::string& part : c.expected) {
    EXPECT_NE(message.find(part), std::string::npos)
        << "expected \"" << part << "\" in\n  " << message;
  }
}

INSTANTIATE_TEST_SUITE_P(Urdf, UrdfErrors, ::testing::ValuesIn(error_cases()),
                         [](const ::testing::TestParamInfo<ErrorCase>& info) {
                           return info.param.name;
                         });

// the whole tree's checks name the joint by its line, here far into a long file: a chain of
// links, each link and joint on a line of its own, the last link massless on a joint
TEST(UrdfErrors, LineOfALinkFarIntoALongFile) {
  constexpr int kLinks = 3000;
  std::string xml = "<robot name=\"r\">\n<link name=\"l0\"/>\n";
  for (int i = 1; i < kLinks; ++i) {
    if (i < kLinks - 1) {
      xml += fmt::format(
          "<link name=\"l{}\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" iyy=\"1\" "
          "izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial></link>\n",
          i);
    } else {
      xml += fmt::format("<link name=\"l{}\"/>\n", i);
    }
    xml += fmt::format(
        "<joint name=\"j{}\" type=\"continuous\"><parent link=\"l{}\"/><child "
        "link=\"l{}\"/></joint>\n",
        i, i - 1, i);
  }
  xml += "</robot>\n";
  // l0 on line 2, then link i on line 2i + 1 and joint i on line 2i + 2
  const std::string message = error_of([&] { load_urdf_string(xml, {}, "long.urdf"); });
  EXPECT_TRUE(message.starts_with(
      fmt::format("long.urdf:{}: joint 'j{}': H is singular", 2 * (kLinks - 1) + 2, kLinks - 1)))
      << message;
}

// urdfdom's messages go into the ModelError, not to the process's console_bridge handler, which
// is back in place with its log level after the load
TEST(UrdfErrors, ConsoleBridgeHandlerIsLeftAlone) {
  struct Recorder : console_bridge::OutputHandler {
    void log(const std::string& text, console_bridge::LogLevel, const char*, int) override {
      seen.push_back(text);
    }
    std::vector<std::string> seen;
  } recorder;
  console_bridge::OutputHandler* const before = console_bridge::getOutputHandler();
  const console_bridge::LogLevel level = console_bridge::getLogLevel();
  console_bridge::useOutputHandler(&recorder);
  console_bridge::setLogLevel(console_bridge::CONSOLE_BRIDGE_LOG_DEBUG);
  const std::string message =
      error_of([] { load(R"(<robot name="r"><link name="a"/><link name="b"/></robot>)"); });
  EXPECT_EQ(console_bridge::getOutputHandler(), &recorder);
  EXPECT_EQ(console_bridge::getLogLevel(), console_bridge::CONSOLE_BRIDGE_LOG_DEBUG);
  console_bridge::setLogLevel(level);
  console_bridge::useOutputHandler(before);
  EXPECT_EQ(recorder.seen, std::vector<std::string>{});
  EXPECT_NE(message.find("Two root links found"), std::string::npos) << message;
}

// urdfdom's log is process-wide: loads on several threads keep their messages apart
TEST(UrdfErrors, ConcurrentLoadsKeepTheirMessages) {
  constexpr int kThreads = 8;
  std::vector<std::string> messages(kThreads);
  std::vector<int> nbody(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int k = 0; k < 20; ++k) {
        if (t % 2 == 0) {
          nbody[t] = load_urdf(urdf_file("tree")).model.nbody;
        } else {
          messages[t] = error_of([&] {
            load_urdf_string(fmt::format(R"(<robot name="r"><link name="a{}"/><link name="b"/>
                                            </robot>)",
                                         t),
                             {}, fmt::format("thread{}.urdf", t));
          });
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    if (t % 2 == 0) {
      EXPECT_EQ(nbody[t], 9);
    } else {
      EXPECT_EQ(messages[t],
                fmt::format("thread{0}.urdf: not a valid URDF (urdfdom could not parse it: Failed "
                            "to find root link: Two root links found: [a{0}] and [b])",
                            t));
    }
  }
}

TEST(UrdfErrors, MissingFile) {
  const std::filesystem::path missing = urdf_dir() / "no_such_robot.urdf";
  EXPECT_EQ(error_of([&] { load_urdf(missing); }),
            missing.string() + ": cannot open the file (No such file or directory)");
  EXPECT_EQ(error_of([] { load_urdf(urdf_dir()); }),
            urdf_dir().string() + ": cannot open the file (it is a directory)");
}

}  // namespace
}  // namespace zwang::test
