// The MJCF loader's constraint elements against MuJoCo 2.2.2: joint limit and friction-loss
// parameters, <equality> (with default classes), <option iterations tolerance> and <flag>,
// compiled by both from the same text; the constants MuJoCo derives at qpos0 (eq_data,
// body_invweight0, dof_invweight0); the messages of what zwang refuses; and the <custom>
// numerics that carry zwang's own constraints.
//
// Parameters copied from the text must be identical; eq_data's derived columns (forward
// kinematics at qpos0) agree to 1e-12 (Comparison's scale); invweight0 to 1e-9 relative per
// element, on models whose inertias MuJoCo copies as written (one geom or diaginertia per body).
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "data_dir.h"
#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

constexpr double kKinematics = 1e-12;
constexpr double kInvweight = 1e-9;

fs::path test_dir() {
  return data_dir();
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

template <class T>
std::vector<T> array(const T* p, int n) {
  return std::vector<T>(p, p + n);
}

// ---------------------------------------------------------------------------------------------
// compiled arrays

struct Case {
  std::string name;
  std::string xml;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// limit and friction parameters from default classes (nested, childclass, class), a ball limit
const char* kJoints = R"(<mujoco>
  <compiler angle="radian"/>
  <option iterations="37" tolerance="1e-6"><flag frictionloss="disable"/></option>
  <default>
    <joint margin="0.01" solreflimit="0.05 0.8" frictionloss="0.3"/>
    <default class="soft">
      <joint solimplimit="0.8 0.9 0.02" solreffriction="0.1" margin="0.02"
             solimpfriction="0.7 0.8 0.01 0.3 3"/>
      <equality solref="0.03 0.9" active="false"/>
      <default class="softer">
        <joint frictionloss="0.7" solreflimit="-100 -10"/>
        <equality solimp="0.5 0.6"/>
      </default>
    </default>
  </default>
  <worldbody>
    <body name="a" childclass="soft">
      <joint name="ja" limited="true" range="-1 1"/>
      <geom size="0.1" pos="0 0 -0.5"/>
      <body name="b" pos="0 0 -1">
        <joint name="jb" class="softer" type="slide" limited="true" range="-0.5 0.5" axis="1 0 0"/>
        <geom type="box" size="0.1 0.2 0.3"/>
        <body name="c" pos="0 0 -1">
          <joint name="jc" type="ball" limited="true" range="0 1" margin="0.05" solimplimit="0.95"/>
          <geom size="0.1" pos="0.1 0 -0.2"/>
        </body>
      </body>
    </body>
    <body name="d" pos="1 0 0">
      <joint name="jd" frictionloss="0" solreffriction="0.04 2"/>
      <inertial pos="0 0 -0.3" mass="2" diaginertia="0.1 0.2 0.3" euler="0.1 0.2 0.3"/>
    </body>
  </worldbody>
  <equality>
    <connect name="c1" class="softer" body1="c" body2="d" anchor="0.1 0.2 0.3"/>
    <joint joint1="jd" joint2="ja" polycoef="0.1 2 0.3 0 0" class="soft" active="true"/>
    <joint name="main" joint1="jb" solimp="0.6"/>
  </equality>
</mujoco>
)";

// every kind of equality; the section comes before the bodies it names
const char* kEqualities = R"(<mujoco>
  <equality>
    <connect body1="b1" anchor="0 0 0.5"/>
    <connect name="cc" body1="b1" body2="b2" anchor="0.1 0 0" solref="0.05"
             solimp="0.8 0.85 0.002 0.4 3"/>
    <weld name="w0" body1="b2" body2="b3"/>
    <weld name="w1" body1="b3" anchor="0.1 0.2 0.3" torquescale="2"/>
    <weld name="w2" body1="b1" body2="b3" relpose="0.1 0.2 0.3 1 0.2 0 0" anchor="0 0 0.1"/>
    <weld name="w3" body1="world" body2="b4" anchor="0.3 0 0"/>
    <joint joint1="h2"/>
    <joint name="jj" joint1="s3" joint2="h1" polycoef="0 0.5 0.1 0 0" active="false"/>
  </equality>
  <worldbody>
    <body name="b1" pos="0.3 0 1" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.3"/>
      <body name="b2" pos="0.5 0 0" euler="0 30 0">
        <joint name="h1" axis="0 1 0" ref="15" margin="0.1"/>
        <geom type="capsule" size="0.05 0.2"/>
        <body name="b3" pos="0 0 -0.4" quat="0.9 0.1 0.3 0.2">
          <joint name="ball" type="ball"/>
          <geom type="ellipsoid" size="0.1 0.15 0.2" pos="0 0.1 0"/>
        </body>
      </body>
    </body>
    <body name="b4" pos="-1 0 0.5">
      <joint name="h2" axis="1 0 0"/>
      <joint name="s3" type="slide" ref="0.2" axis="0 0 1"/>
      <geom type="cylinder" size="0.1 0.3"/>
    </body>
  </worldbody>
</mujoco>
)";

std::vector<Case> cases() {
  return {{"joints", kJoints},
          {"equalities", kEqualities},
          {"four_bar", read_text(test_dir() / "models" / "four_bar.xml")}};
}

class MjcfConstraints : public ::testing::TestWithParam<Case> {};

TEST_P(MjcfConstraints, CompiledArraysMatchMujoco) {
  const Case& c = GetParam();
  const LoadResult loaded = load_mjcf_string(c.xml, c.name + ".xml", {}, kMujoco2);
  const Model& z = loaded.model;
  for (const std::string& w : loaded.warnings) {
    EXPECT_NE(w.find("no narrow phase"), std::string::npos) << c.name << ": " << w;
  }
  std::string error;
  const MjModelPtr m = load_mujoco_string(c.xml, c.name + ".xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(z, m.get()));
  const int njnt = m->njnt, nv = m->nv, neq = m->neq;

  // joint limits and dof friction loss
  EXPECT_EQ(z.jnt_margin, array(m->jnt_margin, njnt));
  EXPECT_EQ(z.jnt_solref, array(m->jnt_solref, 2 * njnt));
  EXPECT_EQ(z.jnt_solimp, array(m->jnt_solimp, 5 * njnt));
  EXPECT_EQ(z.dof_frictionloss, array(m->dof_frictionloss, nv));
  EXPECT_EQ(z.dof_solref, array(m->dof_solref, 2 * nv));
  EXPECT_EQ(z.dof_solimp, array(m->dof_solimp, 5 * nv));

  // equalities
  ASSERT_EQ(z.neq, neq);
  for (int e = 0; e < neq; ++e) {
    EXPECT_EQ(static_cast<int>(z.eq_type[e]), m->eq_type[e]) << c.name << " equality " << e;
  }
  EXPECT_EQ(z.eq_obj1id, array(m->eq_obj1id, neq));
  EXPECT_EQ(z.eq_obj2id, array(m->eq_obj2id, neq));
  std::vector<int> active(m->eq_active, m->eq_active + neq);
  EXPECT_EQ(z.eq_active, active);
  EXPECT_EQ(z.eq_solref, array(m->eq_solref, 2 * neq));
  EXPECT_EQ(z.eq_solimp, array(m->eq_solimp, 5 * neq));
  Comparison cmp(c.name);
  for (int e = 0; e < neq; ++e) {
    // a joint equality has polycoef only; MuJoCo leaves its unused torquescale slot at 1
    const int used = m->eq_type[e] == mjEQ_JOINT ? 5 : mjNEQDATA;
    cmp.check("eq_data", e, std::span<const double>(z.eq_data.data() + mjNEQDATA * e, used),
              view(m->eq_data + mjNEQDATA * e, used), kKinematics);
  }

  // solver
  EXPECT_EQ(z.iterations, m->opt.iterations);
  EXPECT_EQ(z.tolerance, m->opt.tolerance);
  // load_mujoco switches MuJoCo's constraints off; the other bits are the file's
  EXPECT_EQ(z.disableflags & ~kDisableConstraint, m->opt.disableflags & 0x1f & ~mjDSBL_CONSTRAINT);

  // mean diagonals of J H⁻¹ Jᵀ at qpos0
  auto relative = [&](std::string_view what, const std::vector<double>& zw, const double* mj) {
    ASSERT_EQ(zw.size(), std::size_t(what == "body_invweight0" ? 2 * m->nbody : nv));
    for (std::size_t i = 0; i < zw.size(); ++i) {
      EXPECT_LE(std::abs(zw[i] - mj[i]), kInvweight * std::abs(mj[i]))
          << fmt::format("{} {}[{}]: zwang {:.17g} MuJoCo {:.17g}", c.name, what, i, zw[i], mj[i]);
    }
  };
  relative("body_invweight0", z.body_invweight0, m->body_invweight0);
  relative("dof_invweight0", z.dof_invweight0, m->dof_invweight0);
}

INSTANTIATE_TEST_SUITE_P(Models, MjcfConstraints, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// MuJoCo's disableflags as the file sets them (load_mujoco_string adds mjDSBL_CONSTRAINT)
int mujoco_disableflags(const std::string& xml) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  EXPECT_EQ(mj_makeEmptyFileVFS(vfs.get(), "f.xml", static_cast<int>(xml.size())), 0);
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "f.xml")], xml.data(), xml.size());
  std::array<char, 1024> message{};
  const MjModelPtr m(
      mj_loadXML("f.xml", vfs.get(), message.data(), static_cast<int>(message.size())));
  mj_deleteVFS(vfs.get());
  EXPECT_TRUE(m) << message.data();
  return m ? m->opt.disableflags : -1;
}

TEST(MjcfConstraintOptions, FlagsMatchMujoco) {
  const std::vector<std::string> flags = {
      "",
      R"(<flag constraint="disable"/>)",
      R"(<flag equality="disable" limit="disable"/>)",
      R"(<flag frictionloss="disable" contact="disable" constraint="enable"/>)",
      R"(<flag constraint="disable" equality="disable" frictionloss="disable" limit="disable"
              contact="disable"/>)",
      R"(<flag equality="enable" limit="enable" frictionloss="enable" contact="enable"/>)",
  };
  for (const std::string& flag : flags) {
    const std::string xml = fmt::format(
        "<mujoco>\n<option iterations=\"5\">{}</option>\n<worldbody>\n<body>\n<joint/>\n"
        "<geom size=\"0.1\"/>\n</body>\n</worldbody>\n</mujoco>\n",
        flag);
    const Model z = load_mjcf_string(xml, "f.xml", {}, kMujoco2).model;
    EXPECT_EQ(z.disableflags, mujoco_disableflags(xml) & 0x1f) << flag;
    EXPECT_EQ(z.iterations, 5);
    EXPECT_EQ(z.tolerance, 1e-8);
  }
}

// ---------------------------------------------------------------------------------------------
// errors

std::string load_error(const std::string& xml) {
  try {
    load_mjcf_string(xml, "bad.xml", {}, kMujoco2);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

// two bodies b1 (hinge h1) and b2 (slide s2), then `after` from line 10 on
std::string two_bodies(std::string_view after) {
  return fmt::format(
      "<mujoco>\n<worldbody>\n<body name=\"b1\">\n<joint name=\"h1\"/>\n<geom size=\"0.1\"/>\n"
      "</body>\n<body name=\"b2\"><joint name=\"s2\" type=\"slide\"/><geom size=\"0.1\"/></body>\n"
      "</worldbody>\n<equality>\n{}\n</equality>\n</mujoco>\n",
      after);
}

TEST(MjcfConstraintErrors, MessagesNameFileLineAndWhat) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {two_bodies("<tendon tendon1=\"t\"/>"), "bad.xml:10: equality '#0': unknown tendon 't'"},
      {two_bodies("<weld body1=\"b1\"/>\n<distance geom1=\"g1\" geom2=\"g2\"/>"),
       "bad.xml:11: <distance> equality constraints are not supported (MuJoCo 2.2.2 removed "
       "them); connect, weld, joint and tendon are"},
      {two_bodies("<connect name=\"c\" body1=\"b1\" body2=\"nope\" anchor=\"0 0 0\"/>"),
       "bad.xml:10: equality 'c': unknown body 'nope'"},
      {two_bodies("<weld body1=\"b1\"/>\n<joint joint1=\"h1\" joint2=\"nope\"/>"),
       "bad.xml:11: equality '#1': unknown joint 'nope'"},
      {two_bodies("<connect body1=\"b1\"/>"), "bad.xml:10: <connect> needs the attribute 'anchor'"},
      {two_bodies("<joint joint1=\"h1\" polycoef=\"0 1\"/>"),
       "bad.xml:10: <joint> attribute 'polycoef': '0 1' has 2 values, expected 5"},
      {two_bodies("<weld body1=\"b1\" active=\"yes\"/>"),
       "bad.xml:10: <weld> attribute 'active': 'yes' is not one of 'false', 'true'"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"drive:h1\" data=\"0 1 2 3\"/>\n"
                  "</custom>\n<equality>"),
       "bad.xml:12: numeric 'drive:h1' needs 5 or 7 numbers in 'data' (q0 v0 amplitude omega "
       "phase, then optionally solref), not 4"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"drive:nope\" data=\"0 1 2 3 4\"/>\n"
                  "</custom>\n<equality>"),
       "bad.xml:12: drive of joint 'nope': unknown joint"},
      {two_bodies("<connect name=\"c\" body1=\"b1\" anchor=\"0 0 0\"/>\n</equality>\n<custom>\n"
                  "<numeric name=\"hard:d\" data=\"1\"/>\n</custom>\n<equality>"),
       "bad.xml:13: numeric 'hard:d': no equality is named 'd'"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"hard:c\" data=\"2\"/>\n"
                  "</custom>\n<equality>"),
       "bad.xml:12: numeric 'hard:c': data must be 1 or 0, not 2"},
      {two_bodies("<weld name=\"w\" body1=\"b1\"/>\n</equality>\n<custom>\n"
                  "<numeric name=\"hard:w\" data=\"1\"/>\n</custom>\n<equality>"),
       "bad.xml:10: equality 'w': a weld cannot be hard (connect and joint equalities can); use "
       "a soft weld with a stiff solref (numeric 'hard:w' at bad.xml:13)"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"knife_edge:b1\" data=\"0 0 0 0 1\"/>\n"
                  "</custom>\n<equality>"),
       "bad.xml:12: numeric 'knife_edge:b1' needs 6 or 8 numbers in 'data' (point and direction "
       "in the body frame, then optionally solref), not 5"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"rolling_sphere:b2\" data=\"0.1\"/>\n"
                  "</custom>\n<equality>"),
       "bad.xml:12: numeric 'rolling_sphere:b2' needs 2 or 4 numbers in 'data' (radius and the "
       "plane's height, then optionally solref), not 1"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"rolling_sphere:b2\" data=\"0.1 0\"/>\n"
                  "<numeric name=\"rolling_sphere:b2\" data=\"0.2 0\"/>\n</custom>\n<equality>"),
       "bad.xml:13: numeric 'rolling_sphere:b2' is defined twice"},
      {two_bodies("</equality>\n<custom>\n<numeric name=\"knife_edge:nope\" "
                  "data=\"0 0 0 0 1 0\"/>\n</custom>\n<equality>"),
       "bad.xml:12: non-holonomic constraint 'knife_edge:nope': unknown or fixed body 'nope'"},
  };
  for (const auto& [xml, expected] : cases) EXPECT_EQ(load_error(xml), expected) << xml;
}

// ---------------------------------------------------------------------------------------------
// zwang's numerics

TEST(MjcfConstraintNumerics, DriveHardKnifeEdgeRollingSphere) {
  const std::string xml = R"(<mujoco>
  <custom>
    <numeric name="drive:h1" data="0.1 0.2 0.3 4 0.5"/>
    <numeric name="hard:cc" data="1"/>
    <numeric name="hard:jj" data="0"/>
    <numeric name="knife_edge:cart" data="0 0 -0.1 0 2 0" size="6"/>
    <numeric name="rolling_sphere:ball" data="0.1 -0.5"/>
    <numeric name="gains" data="1 2 3"/>
    <numeric name="other:thing" data="1"/>
    <text name="t" data="x"/>
    <tuple name="u"><element objtype="body" objname="cart" prm="1"/></tuple>
  </custom>
  <worldbody>
    <body name="cart">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="arm" pos="0.3 0 0">
        <joint name="h1" axis="0 1 0"/>
        <geom size="0.05"/>
      </body>
    </body>
    <body name="ball" pos="1 0 0">
      <freejoint/>
      <geom size="0.1"/>
    </body>
    <body name="rod" pos="0 1 0">
      <joint name="h2"/>
      <joint name="h3" axis="1 0 0"/>
      <geom type="capsule" size="0.05 0.2"/>
    </body>
  </worldbody>
  <equality>
    <connect name="cc" body1="rod" body2="arm" anchor="0 0 0.2"/>
    <joint name="jj" joint1="h3" joint2="h2"/>
    <connect body1="ball" anchor="0 0 0"/>
  </equality>
</mujoco>
)";
  const LoadResult r = load_mjcf_string(xml, "n.xml", {}, kMujoco2);
  for (const std::string& w : r.warnings) {
    EXPECT_NE(w.find("no narrow phase"), std::string::npos) << w;
  }
  const Model& z = r.model;
  EXPECT_EQ(z.ndrive, 1);
  EXPECT_EQ(z.drive_jnt, std::vector<int>{z.id(ObjType::kJoint, "h1")});
  EXPECT_EQ(z.drive_prm, (std::vector<double>{0.1, 0.2, 0.3, 4, 0.5}));
  EXPECT_EQ(z.eq_hard, (std::vector<int>{1, 0, 0}));
  EXPECT_EQ(z.nnhc, 2);
  EXPECT_EQ(z.nhc_type, (std::vector<NonholonomicType>{NonholonomicType::kKnifeEdge,
                                                       NonholonomicType::kRollingSphere}));
  EXPECT_EQ(z.nhc_body,
            (std::vector<int>{z.id(ObjType::kBody, "cart"), z.id(ObjType::kBody, "ball")}));
  EXPECT_EQ(z.nhc_data, (std::vector<double>{0, 0, -0.1, 0, 1, 0, 0.1, -0.5, 0, 0, 0, 0}));

  // valid MJCF, which MuJoCo compiles to the same tree and equalities
  std::string error;
  const MjModelPtr m = load_mujoco_string(xml, "n.xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(z, m.get()));
  EXPECT_EQ(z.neq, m->neq);
}

// a limited fixed tendon is a constraint of the model, loaded without a word (its rows against
// MuJoCo: test_tendons.cc)
TEST(MjcfConstraintWarnings, TendonLimitsAreEnforced) {
  const std::string xml = R"(<mujoco>
  <option><flag contact="disable"/></option>
  <worldbody>
    <body name="a"><joint name="j1" axis="0 1 0"/><geom size="0.1"/></body>
    <body name="b"><joint name="j2" axis="0 1 0"/><geom size="0.1"/></body>
  </worldbody>
  <tendon>
    <fixed name="t" limited="true" range="-1 1"><joint joint="j1" coef="1"/><joint joint="j2" coef="-1"/></fixed>
  </tendon>
</mujoco>)";
  const LoadResult r = load_mjcf_string(xml, "t.xml", {}, kMujoco2);
  EXPECT_TRUE(r.warnings.empty());
  ASSERT_EQ(r.model.ntendon, 1);
  EXPECT_EQ(r.model.tendon_limited[0], 1);
  EXPECT_EQ(r.model.sizes().nefc, 2);
}

}  // namespace
}  // namespace zwang::test
