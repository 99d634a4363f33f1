// The MJCF loader's contacts against MuJoCo 2.2.2: geoms (type, body, size, frame in the body,
// contact parameters), <contact> pairs and exclusions, and <option cone impratio>, compiled by
// both from the same file or text (tests/data/models, Gymnasium's models, MuJoCo's humanoid.xml,
// small models of default classes and pairs); the messages of what zwang refuses; the warnings for
// geom pairs without a narrow phase and for mesh geoms.
//
// Parameters copied from the text must be identical; the geom frames, which both compute from
// fromto, euler or axisangle, agree to 1e-12.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "data_dir.h"
#include "host/model/constraint_plan.hpp"
#include "mujoco_util.h"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

constexpr double kFrame = 1e-12;

template <class T>
std::vector<T> array(const T* p, int n) {
  return std::vector<T>(p, p + n);
}

template <class T>
std::vector<T> slice(const std::vector<T>& v, int i, int n) {
  return std::vector<T>(v.begin() + i * n, v.begin() + (i + 1) * n);
}

// geoms, pairs, exclusions and the contact options of both compilations, element by element
void expect_same_contacts(const Model& z, const mjModel* m) {
  ASSERT_EQ(z.ngeom, m->ngeom);
  for (int g = 0; g < z.ngeom; ++g) {
    const char* name = mj_id2name(m, mjOBJ_GEOM, g);
    const std::string where = fmt::format("geom {} '{}'", g, z.geom_name[g]);
    EXPECT_EQ(z.geom_name[g], name != nullptr ? name : "") << where;
    EXPECT_EQ(static_cast<int>(z.geom_type[g]), m->geom_type[g]) << where;
    EXPECT_EQ(z.geom_bodyid[g], m->geom_bodyid[g]) << where;
    EXPECT_EQ(slice(z.geom_size, g, 3), array(m->geom_size + 3 * g, 3)) << where;
    EXPECT_EQ(z.geom_contype[g], m->geom_contype[g]) << where;
    EXPECT_EQ(z.geom_conaffinity[g], m->geom_conaffinity[g]) << where;
    EXPECT_EQ(z.geom_condim[g], m->geom_condim[g]) << where;
    EXPECT_EQ(z.geom_priority[g], m->geom_priority[g]) << where;
    EXPECT_EQ(slice(z.geom_friction, g, 3), array(m->geom_friction + 3 * g, 3)) << where;
    EXPECT_EQ(z.geom_margin[g], m->geom_margin[g]) << where;
    EXPECT_EQ(z.geom_gap[g], m->geom_gap[g]) << where;
    EXPECT_EQ(z.geom_solmix[g], m->geom_solmix[g]) << where;
    EXPECT_EQ(slice(z.geom_solref, g, 2), array(m->geom_solref + 2 * g, 2)) << where;
    EXPECT_EQ(slice(z.geom_solimp, g, 5), array(m->geom_solimp + 5 * g, 5)) << where;
    // the frame in the body, the quaternion up to its sign
    for (int k = 0; k < 3; ++k) {
      EXPECT_NEAR(z.geom_pos[3 * g + k], m->geom_pos[3 * g + k], kFrame) << where << " pos";
    }
    double dot = 0;
    for (int k = 0; k < 4; ++k) dot += z.geom_quat[4 * g + k] * m->geom_quat[4 * g + k];
    const double sign = dot < 0 ? -1 : 1;
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(sign * z.geom_quat[4 * g + k], m->geom_quat[4 * g + k], kFrame)
          << where << " quat";
    }
  }
  ASSERT_EQ(z.npair, m->npair);
  for (int p = 0; p < z.npair; ++p) {
    const std::string where = fmt::format("pair {} '{}'", p, z.pair_name[p]);
    const char* name = mj_id2name(m, mjOBJ_PAIR, p);
    EXPECT_EQ(z.pair_name[p], name != nullptr ? name : "") << where;
    EXPECT_EQ(z.pair_geom1[p], m->pair_geom1[p]) << where;
    EXPECT_EQ(z.pair_geom2[p], m->pair_geom2[p]) << where;
    EXPECT_EQ(z.pair_dim[p], m->pair_dim[p]) << where;
    EXPECT_EQ(slice(z.pair_friction, p, 5), array(m->pair_friction + 5 * p, 5)) << where;
    EXPECT_EQ(slice(z.pair_solref, p, 2), array(m->pair_solref + 2 * p, 2)) << where;
    EXPECT_EQ(slice(z.pair_solimp, p, 5), array(m->pair_solimp + 5 * p, 5)) << where;
    EXPECT_EQ(z.pair_margin[p], m->pair_margin[p]) << where;
    EXPECT_EQ(z.pair_gap[p], m->pair_gap[p]) << where;
  }
  ASSERT_EQ(z.nexclude, m->nexclude);
  for (int e = 0; e < z.nexclude; ++e) {
    // MuJoCo's signature: (body1 + 1) << 16 | body2 + 1
    EXPECT_EQ(z.exclude_body1[e], (m->exclude_signature[e] >> 16) - 1) << "exclude " << e;
    EXPECT_EQ(z.exclude_body2[e], (m->exclude_signature[e] & 0xffff) - 1) << "exclude " << e;
  }
  EXPECT_EQ(static_cast<int>(z.cone), m->opt.cone);
  EXPECT_EQ(z.impratio, m->opt.impratio);
}

// ---------------------------------------------------------------------------------------------
// the models of tests/data/models, Gymnasium's and MuJoCo's humanoid

fs::path test_dir() {
  return data_dir();
}

// a file, or the name of a Gymnasium asset (found at run time)
std::vector<std::string> model_files() {
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(test_dir() / "models")) {
    if (entry.path().extension() == ".xml") files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  files.push_back("/usr/share/mujoco/model/humanoid/humanoid.xml");
  for (const char* gym :
       {"ant", "hopper", "half_cheetah", "walker2d_v5", "humanoid", "pusher_v5", "reacher"}) {
    files.emplace_back(gym);
  }
  return files;
}

std::string test_name(const std::string& file) {
  const fs::path p(file);
  if (!p.is_absolute()) return "gym_" + file;
  return p.parent_path().filename() == "humanoid" ? "mujoco_humanoid" : p.stem().string();
}

class MjcfContactModels : public ::testing::TestWithParam<std::string> {};

TEST_P(MjcfContactModels, MatchMujoco) {
  fs::path file = GetParam();
  if (!file.is_absolute()) {
    const std::string gym = gymnasium_dir();
    ASSERT_FALSE(gym.empty()) << "gymnasium is not installed for python3: pip install gymnasium";
    file = fs::path(gym) / "envs" / "mujoco" / "assets" / (GetParam() + ".xml");
  }
  const LoadResult r = load_mjcf(file, kMujoco2);
  std::string error;
  const MjModelPtr m = load_mujoco(file, &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(r.model, m.get()));
  ASSERT_NO_FATAL_FAILURE(expect_same_contacts(r.model, m.get()));
}

INSTANTIATE_TEST_SUITE_P(Models, MjcfContactModels, ::testing::ValuesIn(model_files()),
                         [](const auto& info) { return test_name(info.param); });

// ---------------------------------------------------------------------------------------------
// small models, compiled by both

struct Case {
  std::string name, xml;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.name;
}

// contact parameters from nested classes, childclass and class; lists filling the front of the
// class's values; fromto, euler and axisangle frames; world geoms after a body in the text
const char* kClasses = R"(<mujoco>
  <compiler angle="degree" eulerseq="zyx"/>
  <option cone="elliptic" impratio="2.5" noslip_iterations="0" collision="all"/>
  <size nconmax="40" njmax="300"/>
  <default>
    <geom friction="0.8" solref="0.01" margin="0.002" contype="3"/>
    <default class="soft">
      <geom condim="4" solimp="0.8 0.9" solmix="2" priority="1" friction="0.6 0.01"/>
      <default class="softer">
        <geom condim="6" solref="-1000 -20" gap="0.001" conaffinity="2"/>
      </default>
    </default>
    <default class="box">
      <geom type="box" size="0.1 0.2 0.3" condim="1"/>
    </default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" friction="1.2 0.02 0.003"/>
    <body name="a" pos="0 0 1" childclass="soft">
      <freejoint/>
      <geom name="a1" type="capsule" fromto="0 0 0 0.1 0.2 0.3" size="0.05"/>
      <geom name="a2" class="box" euler="10 20 30" pos="0.1 0 0"/>
      <body name="b" pos="0 0 0.5">
        <joint type="hinge" axis="0 1 0"/>
        <geom class="softer" type="ellipsoid" size="0.1 0.2 0.15" axisangle="1 1 0 40"/>
        <geom name="b2" type="cylinder" size="0.05 0.1" priority="-2" solimp="0.7 0.8 0.01 0.4 3"/>
      </body>
    </body>
    <geom name="wall" type="box" size="0.1 2 1" pos="2 0 1" quat="0.9 0 0 0.1"/>
    <body name="c" pos="1 0 1">
      <joint type="slide" axis="1 0 0"/>
      <geom name="c1" type="sphere" size="0.1" class="softer" friction="0.3 0.003 0.0003"/>
    </body>
  </worldbody>
</mujoco>
)";

// <pair> with and without attributes, its class, its geoms in either body order; <exclude>
const char* kPairs = R"(<mujoco>
  <default>
    <geom friction="0.7 0.01 0.002" solref="0.03 1.1" margin="0.01"/>
    <pair condim="4" friction="0.9 0.8"/>
    <default class="p">
      <pair solref="0.05 0.9" solimp="0.5 0.6 0.01" margin="0.02" gap="0.005" friction="2"/>
    </default>
  </default>
  <worldbody>
    <geom name="floor" type="plane" size="5 5 0.1" condim="6"/>
    <body name="a" pos="0 0 1">
      <freejoint/>
      <geom name="a1" size="0.1" priority="2" solmix="3"/>
      <body name="b" pos="0 0 0.5">
        <joint axis="0 1 0"/>
        <geom name="b1" type="capsule" size="0.05 0.2"/>
      </body>
    </body>
    <body name="c" pos="1 0 1">
      <joint type="slide" axis="1 0 0"/>
      <geom name="c1" type="box" size="0.1 0.1 0.1"/>
    </body>
  </worldbody>
  <contact>
    <pair geom1="a1" geom2="floor"/>
    <pair name="explicit" geom1="c1" geom2="b1" condim="1" friction="0.5 0.4 0.3 0.2 0.1"
          solref="0.04 0.7" solimp="0.6 0.7 0.002 0.3 1" margin="0.03" gap="0.01"/>
    <pair class="p" geom1="b1" geom2="a1" friction="1.5 1.4"/>
    <exclude body1="c" body2="a"/>
    <exclude name="world-b" body1="world" body2="b"/>
  </contact>
</mujoco>
)";

// more pairs than std::sort sorts by insertion (16), many on one body pair: the order of
// MuJoCo's sort by bodies
std::string many_pairs() {
  std::string pairs;
  for (int i = 0; i < 40; ++i) {
    const int g1 = (7 * i) % 6, g2 = (g1 + 1 + i % 5) % 6;
    pairs += fmt::format("<pair name=\"p{}\" geom1=\"g{}\" geom2=\"g{}\" margin=\"{}\"/>\n", i, g1,
                         g2, 0.001 * i);
  }
  return fmt::format(R"(<mujoco>
  <worldbody>
    <geom name="g0" type="plane" size="1 1 1"/>
    <body name="a"><freejoint/><geom name="g1" size="0.1"/><geom name="g2" size="0.1"/></body>
    <body name="b"><freejoint/><geom name="g3" size="0.1"/><geom name="g4" size="0.1"/>
      <body name="c"><joint/><geom name="g5" size="0.1"/></body>
    </body>
  </worldbody>
  <contact>
{}  </contact>
</mujoco>
)",
                     pairs);
}

std::vector<Case> cases() {
  return {{"classes", kClasses}, {"pairs", kPairs}, {"many_pairs", many_pairs()}};
}

class MjcfContactCases : public ::testing::TestWithParam<Case> {};

TEST_P(MjcfContactCases, MatchMujoco) {
  const Case& c = GetParam();
  const LoadResult r = load_mjcf_string(c.xml, c.name + ".xml", {}, kMujoco2);
  std::string error;
  const MjModelPtr m = load_mujoco_string(c.xml, c.name + ".xml", &error);
  ASSERT_TRUE(m) << error;
  ASSERT_NO_FATAL_FAILURE(expect_same_tree(r.model, m.get()));
  ASSERT_NO_FATAL_FAILURE(expect_same_contacts(r.model, m.get()));
}

INSTANTIATE_TEST_SUITE_P(Models, MjcfContactCases, ::testing::ValuesIn(cases()),
                         [](const auto& info) { return info.param.name; });

// the values the comparison relies on, spelled out: MuJoCo 2.2.2's pairs never mix their geoms'
// parameters, an unset one is the pair class's; the lower-numbered body's geom comes first, and
// pairs and exclusions are sorted by their bodies
TEST(MjcfContacts, PairsTakeTheirClassNotTheirGeoms) {
  const Model z = load_mjcf_string(kPairs, "pairs.xml", {}, kMujoco2).model;
  ASSERT_EQ(z.npair, 3);
  const int floor = z.id(ObjType::kGeom, "floor"), a1 = z.id(ObjType::kGeom, "a1"),
            b1 = z.id(ObjType::kGeom, "b1");
  const int c1 = z.id(ObjType::kGeom, "c1");
  EXPECT_EQ(z.pair_geom1, (std::vector<int>{floor, a1, b1}));
  EXPECT_EQ(z.pair_geom2, (std::vector<int>{a1, b1, c1}));
  EXPECT_EQ(z.pair_name, (std::vector<std::string>{"", "", "explicit"}));
  // the main class's <pair>: condim 4, friction 0.9 0.8 then MuJoCo's 0.005 0.0001 0.0001
  EXPECT_EQ(z.pair_dim, (std::vector<int>{4, 4, 1}));
  EXPECT_EQ(slice(z.pair_friction, 0, 5), (std::vector<double>{0.9, 0.8, 0.005, 0.0001, 0.0001}));
  EXPECT_EQ(slice(z.pair_solref, 0, 2), (std::vector<double>{0.02, 1}));
  EXPECT_EQ(z.pair_margin[0], 0);
  // class p over main, then the element's friction
  EXPECT_EQ(slice(z.pair_friction, 1, 5), (std::vector<double>{1.5, 1.4, 0.005, 0.0001, 0.0001}));
  EXPECT_EQ(slice(z.pair_solref, 1, 2), (std::vector<double>{0.05, 0.9}));
  EXPECT_EQ(slice(z.pair_solimp, 1, 5), (std::vector<double>{0.5, 0.6, 0.01, 0.5, 2}));
  EXPECT_EQ(z.pair_margin[1], 0.02);
  EXPECT_EQ(z.pair_gap[1], 0.005);
  EXPECT_EQ(z.exclude_body1, (std::vector<int>{0, z.id(ObjType::kBody, "a")}));
  EXPECT_EQ(z.exclude_body2,
            (std::vector<int>{z.id(ObjType::kBody, "b"), z.id(ObjType::kBody, "c")}));
}

TEST(MjcfContacts, OptionsAndSizes) {
  const Model z = load_mjcf_string(kClasses, "classes.xml", {}, kMujoco2).model;
  EXPECT_EQ(z.cone, Cone::kElliptic);
  EXPECT_EQ(z.impratio, 2.5);
  EXPECT_EQ(z.nconmax, 40);
  EXPECT_EQ(z.disableflags, 0);
  // MuJoCo's default nconmax, -1: the bound the model implies
  const Model automatic =
      load_mjcf_string("<mujoco>\n<size nconmax=\"-1\"/>\n</mujoco>\n", "s.xml", {}, kMujoco2)
          .model;
  EXPECT_EQ(automatic.nconmax, 0);
  EXPECT_EQ(automatic.cone, Cone::kPyramidal);
  EXPECT_EQ(automatic.impratio, 1);
}

// ---------------------------------------------------------------------------------------------
// messages

std::string body_with(std::string_view inside, std::string_view after = "") {
  return fmt::format(
      "<mujoco>\n<worldbody>\n<body name=\"b\">\n{}\n</body>\n</worldbody>\n{}\n</mujoco>\n",
      inside, after);
}

std::string load_error(const std::string& xml) {
  try {
    load_mjcf_string(xml, "bad.xml", {}, kMujoco2);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "no error";
}

TEST(MjcfContactErrors, MessagesNameFileLineAndWhat) {
  const std::string geoms =
      "<joint/>\n<geom name=\"g1\" size=\"0.1\"/>\n<geom name=\"g2\" size=\"0.1\"/>";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {body_with("<joint/>\n<geom size=\"0.1\" condim=\"2\"/>"),
       "bad.xml:5: <geom> condim 2 is not 1, 3, 4 or 6"},
      // a class's condim is checked where a geom takes it
      {"<mujoco>\n<default>\n<geom condim=\"5\"/>\n</default>\n<worldbody>\n"
       "<geom size=\"0.1\" condim=\"1\"/>\n<geom size=\"0.1\"/>\n</worldbody>\n</mujoco>\n",
       "bad.xml:7: <geom> condim 5 is not 1, 3, 4 or 6"},
      {body_with(geoms, "<contact>\n<pair geom1=\"g1\" geom2=\"g2\" condim=\"2\"/>\n</contact>"),
       "bad.xml:10: <pair> condim 2 is not 1, 3, 4 or 6"},
      {body_with(geoms, "<contact>\n<pair geom1=\"g1\" geom2=\"g3\"/>\n</contact>"),
       "bad.xml:10: <pair> names no geom 'g3'"},
      {body_with(geoms, "<contact>\n<pair geom1=\"g1\"/>\n</contact>"),
       "bad.xml:10: <pair> needs the attribute 'geom2'"},
      {body_with(geoms, "<contact>\n<exclude body1=\"b\" body2=\"c\"/>\n</contact>"),
       "bad.xml:10: <exclude> names no body 'c'"},
      {body_with(geoms,
                 "<contact>\n<exclude body1=\"b\" body2=\"world\"/>\n<contact/>\n"
                 "</contact>"),
       "bad.xml:11: <contact> is not an element of <contact> (pair and exclude are)"},
      {body_with(geoms,
                 "<contact>\n<pair name=\"p\" geom1=\"g1\" geom2=\"g2\"/>\n"
                 "<pair name=\"p\" geom1=\"g2\" geom2=\"g1\"/>\n</contact>"),
       "bad.xml:11: <pair> name 'p' is already used at bad.xml:10"},
      {body_with("<joint/>\n<geom name=\"g\" size=\"0.1\"/>\n<geom name=\"g\" size=\"0.2\"/>"),
       "bad.xml:6: geom name 'g' is already used by the geom at bad.xml:5"},
      {"<mujoco>\n<option noslip_iterations=\"1\"/>\n</mujoco>\n",
       "bad.xml:2: <option> noslip_iterations 1: noslip is not supported (0 turns it off)"},
      {"<mujoco>\n<option collision=\"predefined\"/>\n</mujoco>\n",
       "bad.xml:2: <option> collision 'predefined' is not supported; only 'all' is"},
      {"<mujoco>\n<option cone=\"round\"/>\n</mujoco>\n",
       "bad.xml:2: <option> attribute 'cone': 'round' is not one of 'pyramidal', 'elliptic'"},
      {"<mujoco>\n<worldbody>\n<geom type=\"plane\" size=\"1 1\"/>\n</worldbody>\n</mujoco>\n",
       "bad.xml:3: <geom> of type plane needs a positive third size value (grid spacing); size is "
       "1 1 0"},
      {body_with("<joint/>\n<geom type=\"capsule\" size=\"0.1\" fromto=\"0 0 0 0 0 1\" "
                 "pos=\"0 0 1\"/>"),
       "bad.xml:5: <geom> has both fromto and pos (0 0 1)"},
      {body_with("<joint/>\n<geom size=\"0.1\" friction=\"-1\"/>"),
       "bad.xml:5: geom '0': friction -1 must be non-negative and finite"},
  };
  for (const auto& [xml, expected] : cases) EXPECT_EQ(load_error(xml), expected) << xml;
}

// ---------------------------------------------------------------------------------------------
// warnings

// ellipsoid pairs have a narrow phase (kernels/narrowphase_convex.h, as every pair of types
// zwang loads): no "no narrow phase" warning, with contacts on, off, or filtered
TEST(MjcfContactWarnings, PairsWithoutNarrowPhase) {
  // three free bodies: ellipsoids e | #1, sphere s | e3 with `e3` attributes; `option` on line 2
  auto model = [](std::string_view option, std::string_view e3) {
    return fmt::format(
        "<mujoco>\n{}<worldbody>\n"
        "<body name=\"a\"><freejoint/><geom name=\"e\" type=\"ellipsoid\" size=\"0.1 0.2 "
        "0.3\"/></body>\n"
        "<body name=\"b\"><freejoint/><geom type=\"ellipsoid\" size=\"0.1 0.2 0.3\"/>\n"
        "<geom name=\"s\" size=\"0.1\"/></body>\n"
        "<body name=\"c\"><freejoint/><geom name=\"e3\" type=\"ellipsoid\" size=\"0.1 0.2 "
        "0.3\" {}/></body>\n"
        "</worldbody>\n</mujoco>\n",
        option, e3);
  };
  const LoadResult r = load_mjcf_string(model("", ""), "w.xml", {}, kMujoco2);
  EXPECT_EQ(r.warnings, std::vector<std::string>{});
  // contacts disabled: no geom pair can touch
  const LoadResult off = load_mjcf_string(
      model("<option><flag contact=\"disable\"/></option>\n", ""), "w.xml", {}, kMujoco2);
  EXPECT_EQ(off.warnings, std::vector<std::string>{});
  EXPECT_EQ(off.model.disableflags, kDisableContact);
  EXPECT_EQ(off.model.ngeom, 4);
  // contype 0, conaffinity 0 on e3
  const LoadResult filtered =
      load_mjcf_string(model("", "contype=\"0\" conaffinity=\"0\""), "w.xml", {}, kMujoco2);
  EXPECT_EQ(filtered.warnings, std::vector<std::string>{});
}

// a <pair> makes two geoms touch whatever the filters say: an ellipsoid–sphere pair is kept
TEST(MjcfContactWarnings, ExplicitPairWithoutNarrowPhase) {
  const LoadResult r = load_mjcf_string(
      "<mujoco>\n<worldbody>\n"
      "<body name=\"a\"><freejoint/><geom name=\"e\" type=\"ellipsoid\" size=\"0.1 0.2 0.3\" "
      "contype=\"0\" conaffinity=\"0\"/></body>\n"
      "<body name=\"b\"><freejoint/><geom name=\"s\" size=\"0.1\" contype=\"0\" "
      "conaffinity=\"0\"/></body>\n"
      "</worldbody>\n<contact><pair geom1=\"e\" geom2=\"s\"/></contact>\n</mujoco>\n",
      "w.xml", {}, kMujoco2);
  EXPECT_EQ(r.warnings, std::vector<std::string>{});
  EXPECT_EQ(r.model.npair, 1);
}

// a mesh geom is a geom of the model in MuJoCo's order, and a <pair> naming it is kept; a mesh
// collides with every other geom type: no warning, every pair planned
TEST(MjcfContactWarnings, MeshGeomsCollideWithEveryType) {
  const LoadResult r = load_mjcf_string(
      "<mujoco>\n<asset><mesh name=\"x\" vertex=\"0 0 0 1 0 0 0 1 0 0 0 1\"/></asset>\n"
      "<worldbody>\n<body name=\"a\">\n<freejoint/>\n"
      "<inertial pos=\"0 0 0\" mass=\"1\" diaginertia=\"1 1 1\"/>\n"
      "<geom name=\"m\" type=\"mesh\" mesh=\"x\"/>\n<geom name=\"s\" size=\"0.1\"/>\n</body>\n"
      "<geom name=\"floor\" type=\"plane\" size=\"1 1 1\"/>\n"
      "<body name=\"b\">\n<freejoint/>\n<geom name=\"ball\" size=\"0.1\"/>\n</body>\n"
      "</worldbody>\n<contact>\n<pair geom1=\"m\" geom2=\"floor\"/>\n</contact>\n</mujoco>\n",
      "w.xml", {}, kMujoco2);
  EXPECT_EQ(r.warnings, std::vector<std::string>{})
      << fmt::format("{}", fmt::join(r.warnings, "\n"));
  EXPECT_TRUE(plan_rows(r.model).unsupported.empty());
  EXPECT_EQ(r.model.ngeom, 4);
  EXPECT_EQ(r.model.geom_name, (std::vector<std::string>{"floor", "m", "s", "ball"}));
  EXPECT_EQ(r.model.geom_type[1], GeomType::kMesh);
  EXPECT_EQ(r.model.npair, 1);
}

}  // namespace
}  // namespace zwang::test
