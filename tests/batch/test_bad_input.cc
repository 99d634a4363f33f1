// Bad input of every kind gets a clear error and never a crash, a hang or a silent wrong
// result: model files that are not files, include cycles and explosions, XML nested too deeply
// for a recursive parser, integer attributes out of range, models too large to index, batches
// too large to allocate, and per-instance parameters outside the physical range.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <Eigen/Dense>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "host/load/model_file.hpp"
#include "kernels/status.h"
#include "test_util.h"
#include "zwang/builder.hpp"
#include "zwang/derived.hpp"
#include "zwang/examples.hpp"
#include "zwang/loaders.hpp"
#include "zwang/model.hpp"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

namespace fs = std::filesystem;

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// a scratch directory removed at the end of the test
struct TempDir {
  TempDir() {
    // one per test and process: CTest runs the tests of this file in parallel
    path = fs::temp_directory_path() /
           fmt::format("zwang_{}_{}",
                       ::testing::UnitTest::GetInstance()->current_test_info()->name(), ::getpid());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
  void write(const std::string& name, const std::string& text) const {
    std::FILE* f = std::fopen((path / name).c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs(text.c_str(), f);
    std::fclose(f);
  }
  fs::path path;
};

// ---------------------------------------------------------------------------------------------
// model files

TEST(ModelFiles, WhatIsNotARegularFileIsRefused) {
  TempDir dir;
  EXPECT_EQ(error_of([&] { load_mjcf(dir.path); }),
            dir.path.string() + ": cannot open the file (it is a directory)");
  EXPECT_EQ(error_of([] { load_mjcf("/dev/zero"); }),
            "/dev/zero: cannot open the file (not a regular file)");
  EXPECT_EQ(error_of([] { load_urdf("/dev/zero"); }),
            "/dev/zero: cannot open the file (not a regular file)");
}

TEST(ModelFiles, SizeIsBounded) {
  TempDir dir;
  dir.write("big.xml", std::string(2000, ' '));
  EXPECT_EQ(error_of([&] { read_model_file(dir.path / "big.xml", "big.xml", 1000); }),
            "big.xml: the file has 2000 bytes, more than the 0 MiB a model may have");
  EXPECT_EQ(read_model_file(dir.path / "big.xml", "big.xml", 2000).size(), 2000u);
}

// MuJoCo refuses a file included twice; without that rule, n files that each include the
// next twice expand to 2^n copies
TEST(MjcfIncludes, AFileIsIncludedOnce) {
  TempDir dir;
  dir.write("body.xml", "<mujoco>\n<body><joint/><geom size=\"0.1\"/></body>\n</mujoco>\n");
  const std::string twice =
      "<mujoco>\n<worldbody>\n<include file=\"body.xml\"/>\n<include file=\"body.xml\"/>\n"
      "</worldbody>\n</mujoco>\n";
  EXPECT_EQ(error_of([&] { load_mjcf_string(twice, "main.xml", dir.path); }),
            "main.xml:4: <include> of 'body.xml': the file is already part of the model (each "
            "file may be included once)");

  constexpr int kFiles = 20;
  for (int i = 0; i < kFiles; ++i) {
    dir.write(fmt::format("f{}.xml", i),
              i + 1 < kFiles ? fmt::format("<mujoco>\n<include file=\"f{0}.xml\"/>\n<include "
                                           "file=\"f{0}.xml\"/>\n</mujoco>\n",
                                           i + 1)
                             : "<mujoco/>\n");
  }
  const auto start = std::chrono::steady_clock::now();
  const std::string error = error_of([&] { load_mjcf(dir.path / "f0.xml"); });
  EXPECT_EQ(error,
            fmt::format("{}:3: <include> of 'f{}.xml': the file is already part of the "
                        "model (each file may be included once)",
                        (dir.path / fmt::format("f{}.xml", kFiles - 2)).string(), kFiles - 1));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(MjcfIncludes, DevicesAndDirectoriesAreRefused) {
  TempDir dir;
  fs::create_directories(dir.path / "sub");
  EXPECT_EQ(error_of([&] {
              load_mjcf_string("<mujoco>\n<include file=\"/dev/zero\"/>\n</mujoco>\n", "m.xml",
                               dir.path);
            }),
            "m.xml:2: <include> cannot open '/dev/zero' (/dev/zero: cannot open the file (not a "
            "regular file))");
  EXPECT_EQ(error_of([&] {
              load_mjcf_string("<mujoco>\n<include file=\"sub\"/>\n</mujoco>\n", "m.xml", dir.path);
            }),
            fmt::format("m.xml:2: <include> cannot open 'sub' ({}: cannot open the file (it is a "
                        "directory))",
                        (dir.path / "sub").string()));
}

// ---------------------------------------------------------------------------------------------
// attributes

TEST(MjcfAttributes, IntegersAreRangeChecked) {
  const auto geom_group = [](const std::string& group) {
    return error_of([&] {
      load_mjcf_string(fmt::format("<mujoco>\n<worldbody>\n<body>\n<joint/>\n<geom size=\"0.1\" "
                                   "group=\"{}\"/>\n</body>\n</worldbody>\n</mujoco>\n",
                                   group),
                       "bad.xml");
    });
  };
  EXPECT_EQ(geom_group("11111111111"),
            "bad.xml:5: <geom> attribute 'group': '11111111111' is not an integer in "
            "[-2147483648, 2147483647]");
  EXPECT_EQ(geom_group("1.5"),
            "bad.xml:5: <geom> attribute 'group': '1.5' is not an integer in [-2147483648, "
            "2147483647]");
  EXPECT_EQ(geom_group("4"), "(no error)");
}

// an <option> error is located once, whether the attribute or the value is wrong
TEST(MjcfAttributes, OptionErrorsNameTheLineOnce) {
  const auto option = [](const std::string& attrs) {
    return error_of([&] {
      load_mjcf_string(fmt::format("<mujoco>\n<option {}/>\n</mujoco>\n", attrs), "bad.xml");
    });
  };
  EXPECT_EQ(option("timestep=\"abc\""),
            "bad.xml:2: <option> attribute 'timestep': 'abc' is not a finite number");
  EXPECT_EQ(option("gravity=\"0 0\""),
            "bad.xml:2: <option> attribute 'gravity': '0 0' has 2 values, expected 3");
  const std::string negative = option("timestep=\"-1\"");
  EXPECT_TRUE(negative.starts_with("bad.xml:2: ")) << negative;
  EXPECT_EQ(negative.find("bad.xml", 1), std::string::npos) << negative;
}

// XML forbids an attribute twice in one element and MuJoCo refuses it; pugixml would keep the
// first silently (mass="1" mass="100": 1 kg)
TEST(MjcfAttributes, AnAttributeTwiceIsRefused) {
  EXPECT_EQ(error_of([] {
              load_mjcf_string(
                  "<mujoco>\n<worldbody>\n<body>\n<freejoint/>\n<geom size=\"0.1\" mass=\"1\" "
                  "mass=\"100\"/>\n</body>\n</worldbody>\n</mujoco>\n",
                  "twice.xml");
            }),
            "twice.xml:5: <geom> has the attribute 'mass' more than once");
  // in an included file, at its own line
  TempDir dir;
  dir.write("part.xml",
            "<mujoco>\n\n<body name=\"a\" name=\"b\"><freejoint/><geom "
            "size=\"0.1\"/></body>\n</mujoco>\n");
  EXPECT_EQ(error_of([&] {
              load_mjcf_string(
                  "<mujoco>\n<worldbody>\n<include file=\"part.xml\"/>\n"
                  "</worldbody>\n</mujoco>\n",
                  "main.xml", dir.path);
            }),
            fmt::format("{}:3: <body> has the attribute 'name' more than once",
                        (dir.path / "part.xml").string()));
  EXPECT_EQ(error_of([] {
              load_urdf_string(
                  "<robot name=\"r\">\n<link name=\"a\"><inertial>\n<mass value=\"1\" "
                  "value=\"2\"/></inertial></link>\n</robot>\n",
                  {}, "twice.urdf");
            }),
            "twice.urdf:3: <mass> has the attribute 'value' more than once");
}

// ---------------------------------------------------------------------------------------------
// OBJ text that tinyobjloader reads as something else

TEST(ObjFiles, NonFiniteCoordinatesAndFarVertexNumbersAreRefused) {
  TempDir dir;
  const std::string tetra_faces = "f 1 2 3\nf 1 2 4\nf 1 3 4\nf 2 3 4\n";
  const auto load_obj = [&](const std::string& obj) {
    dir.write("m.obj", obj);
    return error_of([&] {
      load_mjcf_string(
          "<mujoco>\n<asset>\n<mesh name=\"m\" file=\"m.obj\"/>\n</asset>\n"
          "<worldbody><body><freejoint/><geom type=\"mesh\" mesh=\"m\"/></body>"
          "</worldbody>\n</mujoco>\n",
          "mesh.xml", dir.path);
    });
  };
  const std::string prefix =
      fmt::format("mesh.xml:3: mesh 'm' (file '{}'): {}", (dir.path / "m.obj").string(),
                  (dir.path / "m.obj").string());
  for (const std::string word : {"nan", "inf", "-inf", "1e999", "abc", "+e5", ".", "-"}) {
    EXPECT_EQ(
        load_obj("v 0 0 0\nv 1 0 0\n# a comment\nv 0 1 0\nv 0 0 " + word + "\n" + tetra_faces),
        fmt::format("{}:5: vertex coordinate '{}' is not a finite number", prefix, word));
  }
  // past 2³², where tinyobjloader's int wraps to a vertex the file has
  EXPECT_EQ(load_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\n"
                     "f 2/1 3 4294967299\n"),
            fmt::format("{}:8: face uses vertex 4294967299, which the file does not have (it "
                        "has 4 vertices)",
                        prefix));
  EXPECT_EQ(load_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\nf 1 2 4\nf 1 3 4\n"
                     "f 2 3 99999999999999999999\n"),
            fmt::format("{}:8: face uses vertex 99999999999999999999, which the file does not "
                        "have (it has 4 vertices)",
                        prefix));
  // relative numbers, texture and normal references, comments, a sign, tabs, CRLF and what
  // tinyobjloader reads as the number in front ("1.0f" is 1) are fine
  EXPECT_EQ(load_obj("v 0 0 0\r\nv\t+1 0 0 # x\nv 0 1.0f 0\nv .0 -.0 1.e0\nvt 0 0\nvn 0 0 1\n"
                     "f 1/1/1 3//1 2\nf -4 -3 -1\nf 1 4 3\nf 2 3 4\n"),
            "(no error)");
}

// Messages that named the wrong cause: an STL error named assimp's made-up file, a huge scale
// was reported as a principal moment that is not positive, a reversed muscle length range as a
// missing one, and a keyframe's mocap count lost its product sign
TEST(ModelMessages, NameTheActualCause) {
  TempDir dir;
  const std::string mesh_model =
      "<mujoco>\n<asset>\n<mesh name=\"m\" file=\"{}\"{}/>\n</asset>\n<worldbody><body>"
      "<freejoint/><geom type=\"mesh\" mesh=\"m\"/></body></worldbody>\n</mujoco>\n";
  // a binary STL whose header counts 10 triangles and that holds 4
  std::string stl(80, '\0');
  const std::uint32_t count = 10;
  stl.append(reinterpret_cast<const char*>(&count), 4);
  stl.append(4 * 50, '\0');
  std::ofstream(dir.path / "short.stl", std::ios::binary) << stl;
  const std::string bad_stl = error_of([&] {
    load_mjcf_string(fmt::format(fmt::runtime(mesh_model), "short.stl", ""), "m.xml", dir.path);
  });
  EXPECT_NE(bad_stl.find("not a valid STL file"), std::string::npos) << bad_stl;
  EXPECT_EQ(bad_stl.find("$$$"), std::string::npos) << bad_stl;
  EXPECT_NE(bad_stl.find((dir.path / "short.stl").string() + ")"), std::string::npos) << bad_stl;

  dir.write("tetra.obj",
            "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n");
  EXPECT_EQ(error_of([&] {
              load_mjcf_string(fmt::format(fmt::runtime(mesh_model), "tetra.obj", ""), "m.xml",
                               dir.path);
            }),
            "(no error)");
  const std::string huge = error_of([&] {
    load_mjcf_string(
        fmt::format(fmt::runtime(mesh_model), "tetra.obj", " scale=\"1e80 1e80 1e80\""), "m.xml",
        dir.path);
  });
  EXPECT_NE(huge.find("it is too large for its volume and inertia to be computed (they "
                      "overflow; check its scale)"),
            std::string::npos)
      << huge;

  EXPECT_EQ(error_of([] {
              load_mjcf_string(
                  "<mujoco>\n<worldbody><body><joint name=\"j\" axis=\"0 1 0\"/>"
                  "<geom size=\"0.1\"/></body></worldbody>\n<actuator>\n<muscle "
                  "joint=\"j\" lengthrange=\"1 -1\"/>\n</actuator>\n</mujoco>\n",
                  "muscle.xml");
            }),
            "muscle.xml:4: actuator 'actuator0': the muscle's lengthrange [1, -1] is empty or "
            "reversed (it needs lo < hi)");

  EXPECT_EQ(error_of([] {
              load_mjcf_string(
                  "<mujoco>\n<worldbody><body mocap=\"true\"><geom size=\"0.1\" "
                  "contype=\"0\" conaffinity=\"0\"/></body></worldbody>\n"
                  "<keyframe><key mpos=\"1 2\"/></keyframe>\n</mujoco>\n",
                  "key.xml");
            }),
            "key.xml:3: keyframe 0: mpos has 2 values, the model needs 3 · nmocap = 3");
}

// The distinct mesh files of a model are bounded together (256 MiB) before any is read, however
// many meshes name each: five files of 55 MiB are refused at the fifth, while eight meshes of one
// file and three more files pass the bound (and stop at the first file, which is no STL).  The
// files are sparse, so that they cost no disk.
TEST(MeshFiles, DistinctFilesAreBoundedTogether) {
  TempDir dir;
  for (int k = 0; k < 5; ++k) {
    const fs::path file = dir.path / fmt::format("big{}.stl", k);
    dir.write(file.filename().string(), "");
    fs::resize_file(file, std::uintmax_t{55} << 20);
  }
  const auto model = [](int files, int repeats) {
    std::string assets, geoms;
    int m = 0;
    for (int k = 0; k < files; ++k) {
      for (int r = 0; r < (k == 0 ? repeats : 1); ++r, ++m) {
        assets += fmt::format("<mesh name=\"m{}\" file=\"big{}.stl\"/>\n", m, k);
        geoms += fmt::format("<geom type=\"mesh\" mesh=\"m{}\"/>", m);
      }
    }
    return "<mujoco>\n<asset>\n" + assets + "</asset>\n<worldbody><body><freejoint/>" + geoms +
           "</body></worldbody>\n</mujoco>\n";
  };
  EXPECT_EQ(error_of([&] { load_mjcf_string(model(5, 1), "meshes.xml", dir.path); }),
            "meshes.xml:7: the model's distinct mesh files together have more than the 256 MiB a "
            "model's meshes may have");
  const std::string repeated =
      error_of([&] { load_mjcf_string(model(4, 8), "meshes.xml", dir.path); });
  EXPECT_TRUE(repeated.starts_with("meshes.xml:3: mesh 'm0'")) << repeated;
  EXPECT_NE(repeated.find("not a valid STL file"), std::string::npos) << repeated;
}

// A file read once for several meshes gives each what its own copy of the file would, mirrored
// where a scale has a negative determinant: the bodies' masses, inertias and frames, and the
// meshes' hulls, equal those of a model whose meshes name separate copies
TEST(MeshFiles, AFileNamedTwiceIsReadOnceForBoth) {
  TempDir dir;
  // an irregular tetrahedron, so that a mirror changes its inertia's frame
  const std::string tetra =
      "v 0 0 0\nv 1.3 0.1 0\nv 0.2 0.9 0.1\nv 0.1 0.3 1.7\nf 1 3 2\nf 1 2 4\nf 1 4 3\n"
      "f 2 3 4\n";
  for (const char* name : {"a.obj", "b.obj", "c.obj"}) dir.write(name, tetra);
  const auto model = [&](const char* first, const char* second, const char* third) {
    return fmt::format(
        "<mujoco>\n<asset>\n<mesh name=\"m1\" file=\"{}\"/>\n<mesh name=\"m2\" file=\"{}\" "
        "scale=\"-1 1 1\"/>\n<mesh name=\"m3\" file=\"{}\" scale=\"2 2 2\"/>\n</asset>\n"
        "<worldbody>\n<body name=\"b1\"><freejoint/><geom type=\"mesh\" mesh=\"m1\"/></body>\n"
        "<body name=\"b2\"><freejoint/><geom type=\"mesh\" mesh=\"m2\"/></body>\n"
        "<body name=\"b3\"><freejoint/><geom type=\"mesh\" mesh=\"m3\"/></body>\n"
        "</worldbody>\n</mujoco>\n",
        first, second, third);
  };
  const Model once = load_mjcf_string(model("a.obj", "a.obj", "a.obj"), "m.xml", dir.path).model;
  const Model copies = load_mjcf_string(model("a.obj", "b.obj", "c.obj"), "m.xml", dir.path).model;
  EXPECT_EQ(once.body_mass, copies.body_mass);
  EXPECT_EQ(once.body_inertia, copies.body_inertia);
  EXPECT_EQ(once.body_ipos, copies.body_ipos);
  EXPECT_EQ(once.mesh_vert, copies.mesh_vert);
  EXPECT_EQ(once.mesh_face, copies.mesh_face);
  // and the mirror is one: the second body's centre of mass is the first's mirrored in x
  EXPECT_GT(std::abs(once.body_ipos[3 * 1]), 0.1);
  EXPECT_NEAR(once.body_ipos[3 * 2], -once.body_ipos[3 * 1], 1e-6);
}

// ---------------------------------------------------------------------------------------------
// URDF nesting: urdfdom's parser recurses per element

std::string nested_urdf(int depth) {
  std::string xml = "<robot name=\"r\">\n<link name=\"a\">\n";
  for (int i = 0; i < depth; ++i) xml += "<x>";
  for (int i = 0; i < depth; ++i) xml += "</x>";
  xml += "\n</link>\n</robot>\n";
  return xml;
}

TEST(UrdfNesting, DeepNestingIsRefusedBeforeUrdfdom) {
  // 50 000 levels overflowed the stack inside urdfdom
  EXPECT_EQ(error_of([] { load_urdf_string(nested_urdf(50000), {}, "deep.urdf"); }),
            "deep.urdf:3: elements nested more than 100 deep; a URDF is never nested that deeply");
  // robot (0), link (1), then x at depths 2 .. 99 is within the limit; the model itself is
  // refused for its own reason (a single massless link)
  const std::string within = error_of([] { load_urdf_string(nested_urdf(98), {}, "ok.urdf"); });
  EXPECT_EQ(within.find("nested"), std::string::npos) << within;
  EXPECT_NE(error_of([] { load_urdf_string(nested_urdf(99), {}, "deep.urdf"); }).find("nested"),
            std::string::npos);
}

// urdfdom passes some messages that quote the file to its logger as a printf format
TEST(UrdfText, PercentSignsAreRefusedOutsideFileNames) {
  EXPECT_EQ(error_of([] {
              load_urdf_string(
                  "<robot name=\"r\">\n<link name=\"a\"><inertial>\n<mass "
                  "value=\"%s%s%s%s%s%s%s%s\"/></inertial></link>\n</robot>\n",
                  {}, "bad.urdf");
            }),
            "bad.urdf:3: attribute 'value' of <mass> contains '%', which only file names may "
            "contain");
  EXPECT_EQ(error_of([] {
              load_urdf_string("<robot name=\"r\">\n<link name=\"%n\"/>\n</robot>\n", {},
                               "bad.urdf");
            }),
            "bad.urdf:2: attribute 'name' of <link> contains '%', which only file names may "
            "contain");
  // a mesh file name may contain one (URL escapes); the mesh itself is ignored with a warning
  const LoadResult r = load_urdf_string(
      "<robot name=\"r\">\n<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"1\" "
      "iyy=\"1\" izz=\"1\" ixy=\"0\" ixz=\"0\" iyz=\"0\"/></inertial><visual><geometry>"
      "<mesh filename=\"package://r/link%201.stl\"/></geometry></visual></link>\n</robot>\n",
      {}, "ok.urdf");
  EXPECT_EQ(r.model.nbody, 2);
}

// ---------------------------------------------------------------------------------------------
// sizes

// a chain of n bodies on hinges; H has n (n + 1) / 2 entries, which overflowed int at 65 536
Model hinge_chain(int n) {
  ModelBuilder b;
  std::string parent = "world";
  for (int i = 0; i < n; ++i) {
    const std::string name = fmt::format("b{}", i);
    b.add_body({.name = name,
                .parent = parent,
                .pos = {0, 0, -0.1},
                .mass = 1,
                .inertia = {0.01, 0.01, 0.01, 0, 0, 0}});
    b.add_joint(name, {.name = "", .type = JointType::kHinge, .axis = {0, 1, 0}});
    parent = name;
  }
  return b.build();
}

TEST(ModelSizes, TooLargeForOneInstanceIsAnError) {
  for (int n : {46341, 65536}) {
    const std::string error = error_of([&] { hinge_chain(n); });
    // rows counted in 64 bits: the body Jacobians alone are 6 n (n + 1) / 2, the largest field
    const std::int64_t jacobians = std::int64_t{n} * (n + 1) * 3;
    EXPECT_TRUE(error.starts_with("model: one instance needs ")) << error;
    EXPECT_NE(error.find(fmt::format("the largest are body_J {}, ", jacobians)), std::string::npos)
        << error;
    EXPECT_NE(error.find(fmt::format("(nv {}, {} bodies)", n, n + 1)), std::string::npos) << error;
  }
  // below the limit the packed sizes are exact
  const Model m = hinge_chain(3000);
  EXPECT_EQ(m.sizes().nM, 3000 * 3001 / 2);
  EXPECT_EQ(m.sizes().njac, 3000 * 3001 / 2);
}

// A contact bound or a keyframe count from a file is checked before anything of its size is
// allocated (2·10⁹ contacts once allocated 1.7 GB and overflowed int), and the message names the
// element and its line
TEST(ModelSizes, HugeContactAndKeyframeCountsAreErrorsBeforeAllocation) {
  const auto model = [](const std::string& size) {
    return fmt::format(
        "<mujoco>\n<size {}/>\n<worldbody>\n<geom type=\"plane\" size=\"1 1 0.1\"/>\n"
        "<body pos=\"0 0 1\"><freejoint/><geom size=\"0.1\"/></body>\n</worldbody>\n"
        "</mujoco>\n",
        size);
  };
  const std::string contacts =
      error_of([&] { load_mjcf_string(model("nconmax=\"2000000000\""), "big.xml"); });
  EXPECT_TRUE(
      contacts.starts_with("big.xml:2: nconmax 2000000000 (contacts per instance, 4 rows "
                           "each): one instance needs "))
      << contacts;
  EXPECT_NE(contacts.find("8000000000 of them for 2000000000 contacts (nconmax)"),
            std::string::npos)
      << contacts;
  // the C++ route
  ModelBuilder b;
  b.add_geom({.name = "floor", .type = GeomType::kPlane, .size = {1, 1, 0.1}});
  b.add_body({.name = "ball", .pos = {0, 0, 1}, .mass = 1, .inertia = {0.1, 0.1, 0.1, 0, 0, 0}});
  b.add_joint("ball", {.name = "free", .type = JointType::kFree});
  b.add_geom({.name = "s", .body = "ball", .type = GeomType::kSphere, .size = {0.1, 0, 0}});
  b.set_max_contacts(std::numeric_limits<int>::max());
  EXPECT_TRUE(error_of([&] { b.build(); }).starts_with("nconmax 2147483647 "));
  // within the bound it builds
  b.set_max_contacts(100000);
  EXPECT_EQ(b.build().sizes().nconmax, 100000);

  EXPECT_EQ(error_of([&] { load_mjcf_string(model("nkey=\"10000000\""), "keys.xml"); }),
            "keys.xml:2: <size> nkey 10000000: a model may have at most 100000 keyframes");
  // a count within it whose values together are too many: 100000 keys of 14 free bodies, each
  // key 1 + 14 · 7 + 14 · 6 = 183 values
  std::string bodies;
  for (int k = 0; k < 14; ++k) {
    bodies += fmt::format("<body pos=\"{} 0 0\"><freejoint/><geom size=\"0.1\"/></body>\n", k);
  }
  const std::string values = error_of([&] {
    load_mjcf_string(
        "<mujoco>\n<size nkey=\"100000\"/>\n<worldbody>\n" + bodies + "</worldbody>\n</mujoco>\n",
        "keys.xml");
  });
  EXPECT_TRUE(
      values.starts_with("keys.xml:2: keyframes: 100000 keyframes of 183 values each "
                         "(time, qpos, qvel, ctrl, act, mocap poses) need 18300000 "
                         "values, more than the 16777216"))
      << values;
  EXPECT_EQ(error_of([&] { load_mjcf_string(model("nkey=\"1000\""), "keys.xml"); }), "(no error)");
}

TEST(BatchSizes, HugeBatchesAreAnErrorAndSmallOnesAreNotPadded) {
  const Model model = examples::chain();
  const std::string error =
      error_of<std::runtime_error>([&] { Batch<double>(model, std::int64_t{1} << 62); });
  EXPECT_TRUE(
      error.starts_with(fmt::format("a batch of {} instances needs ", std::int64_t{1} << 62)))
      << error;
  EXPECT_EQ(Batch<double>(model, 1).padded_size(), 1);
  EXPECT_EQ(Batch<double>(model, 31).padded_size(), 31);
  EXPECT_EQ(Batch<double>(model, 33).padded_size(), 40);  // 5 cache lines
  // an unpadded batch steps like a padded one
  Simulator<double> one(model, 1), many(model, 40);
  one.batch().qvel().set(0, std::vector<double>(model.nv, 0.3));
  many.batch().qvel().set(17, std::vector<double>(model.nv, 0.3));
  one.step(20);
  many.step(20);
  EXPECT_TRUE(same_bits(one.batch().qpos().get(0), many.batch().qpos().get(17)));
}

// ---------------------------------------------------------------------------------------------
// per-instance parameters

// the rule of kernels/check_parameters.h written with eigenvalues: an inertia is a rigid body's
// when its principal moments are ≥ 0 and obey A + B ≥ C
bool rigid_body_inertia(const std::vector<double>& i6, double tolerance) {
  Eigen::Matrix3d i;
  i << i6[0], i6[3], i6[4], i6[3], i6[1], i6[5], i6[4], i6[5], i6[2];
  const Eigen::Vector3d ev = Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(i).eigenvalues();
  return ev[0] >= -tolerance && ev[0] + ev[1] >= ev[2] - tolerance;
}

template <class T>
class Parameters : public ::testing::Test {};
using Scalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Parameters, Scalars);

// each edit of one instance's parameters, and whether it must stop that instance
TYPED_TEST(Parameters, InvalidOnesStopOnlyTheirInstance) {
  using T = TypeParam;
  const Model model = examples::chain({.damping = 0.3, .stiffness = 2, .armature = 0.05});
  struct Edit {
    const char* what;
    bool valid;
    std::function<void(Batch<T>&, std::int64_t)> apply;
  };
  const auto set_body = [](FieldRef<T> f, std::int64_t i, int at, T value) { f(i, at) = value; };
  const std::vector<Edit> edits = {
      {"negative mass", false, [&](Batch<T>& b, auto i) { set_body(b.body_mass(), i, 3, -1); }},
      {"zero mass where the model's is positive", false,
       [&](Batch<T>& b, auto i) { set_body(b.body_mass(), i, 3, 0); }},
      {"NaN mass", false,
       [&](Batch<T>& b, auto i) {
         set_body(b.body_mass(), i, 3, std::numeric_limits<T>::quiet_NaN());
       }},
      {"larger mass", true, [&](Batch<T>& b, auto i) { set_body(b.body_mass(), i, 3, 50); }},
      {"inertia violating A + B >= C", false,
       [&](Batch<T>& b, auto i) { set_body(b.body_inertia(), i, 6 * 2 + 2, 1); }},
      {"inertia with a zero moment where the model's is positive definite", false,
       [&](Batch<T>& b, auto i) {
         for (int k : {0, 1, 2}) set_body(b.body_inertia(), i, 6 * 2 + k, k == 2 ? 0 : 0.5);
       }},
      {"negative damping", false,
       [&](Batch<T>& b, auto i) { set_body(b.dof_damping(), i, 1, -0.1); }},
      {"infinite stiffness", false,
       [&](Batch<T>& b, auto i) {
         set_body(b.jnt_stiffness(), i, 0, std::numeric_limits<T>::infinity());
       }},
      {"negative armature", false,
       [&](Batch<T>& b, auto i) { set_body(b.dof_armature(), i, 2, -0.01); }},
      {"NaN gravity", false,
       [&](Batch<T>& b, auto i) {
         set_body(b.gravity(), i, 2, std::numeric_limits<T>::quiet_NaN());
       }},
      {"zero damping and stiffness", true,
       [&](Batch<T>& b, auto i) {
         set_body(b.dof_damping(), i, 1, 0);
         set_body(b.jnt_stiffness(), i, 0, 0);
       }},
  };
  constexpr std::int64_t kN = 16;
  Simulator<T> clean(model, kN), edited(model, kN);
  for (std::int64_t i = 0; i < kN; ++i) {
    const std::vector<T> qvel(model.nv, T(0.1) * static_cast<T>(i));
    clean.batch().qvel().set(i, qvel);
    edited.batch().qvel().set(i, qvel);
  }
  for (std::size_t e = 0; e < edits.size(); ++e) edits[e].apply(edited.batch(), 2 + e);
  clean.step(5);
  edited.step(5);
  for (std::int64_t i = 0; i < kN; ++i) {
    const bool is_edited = i >= 2 && i < 2 + static_cast<std::int64_t>(edits.size());
    const bool valid = !is_edited || edits[i - 2].valid;
    const int status = edited.batch().status()[i];
    EXPECT_EQ(status, valid ? 0 : int{kStatusBadParameters})
        << "instance " << i << (is_edited ? edits[i - 2].what : "");
    if (!valid) {
      // stopped before the first step: the time and the state have not moved
      EXPECT_EQ(edited.batch().time()[i], 0.0) << edits[i - 2].what;
    }
    if (!is_edited) {
      EXPECT_TRUE(same_bits(edited.batch().qpos().get(i), clean.batch().qpos().get(i)))
          << "instance " << i;
    }
  }
  const std::vector<InstanceFailure> failures = edited.failures();
  ASSERT_FALSE(failures.empty());
  EXPECT_TRUE(failures[0].message().starts_with("instance 2: bad parameters"))
      << failures[0].message();
  // forward() checks the same rule
  Simulator<T> f(model, 2);
  f.batch().body_mass()(1, 3) = T(-2);
  f.forward();
  EXPECT_EQ(f.batch().status()[0], 0);
  EXPECT_EQ(f.batch().status()[1], kStatusBadParameters);
}

// An activation's time constant that vanishes makes act_dot = (u − act) / τ explode, so the rule
// holds it ≥ 0 and > 0 where the model's is (a filter, a muscle's activation and deactivation);
// a non-finite time stops its instance as a non-finite qpos does
TYPED_TEST(Parameters, ActivationTimeConstantsAndTimeAreChecked) {
  using T = TypeParam;
  ModelBuilder b;
  for (const char* body : {"a", "b", "c"}) {
    b.add_body(
        {.name = body, .mass = 1, .com = {0, 0, -0.5}, .inertia = {0.1, 0.1, 0.01, 0, 0, 0}});
    b.add_joint(body, {.name = std::string(body) + "_hinge",
                       .axis = {0, 1, 0},
                       .limited = true,
                       .range = {-1, 1}});
  }
  b.add_actuator({.name = "filter",
                  .joint = "a_hinge",
                  .type = ActuatorType::kGeneral,
                  .dyntype = ActuatorDyn::kFilter,
                  .dynprm = {0.05, 0, 0}});
  // a model time constant of 0 (allowed: the exact filter follows u at once)
  b.add_actuator({.name = "exact",
                  .joint = "b_hinge",
                  .type = ActuatorType::kGeneral,
                  .dyntype = ActuatorDyn::kFilterExact,
                  .dynprm = {0, 0, 0}});
  b.add_actuator({.name = "muscle",
                  .joint = "c_hinge",
                  .type = ActuatorType::kMuscle,
                  .gaintype = ActuatorGain::kMuscle,
                  .biastype = ActuatorBias::kMuscle,
                  .dyntype = ActuatorDyn::kMuscle,
                  .dynprm = {0.01, 0.04, 0},
                  .lengthrange = {-1, 1}});
  const Model model = b.build();
  struct Edit {
    const char* what;
    int status;
    int actuator, k;
    double value;
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<Edit> edits = {
      {"negative filter τ", kStatusBadParameters, 0, 0, -0.1},
      {"zero filter τ where the model's is positive", kStatusBadParameters, 0, 0, 0},
      {"longer filter τ", 0, 0, 0, 0.2},
      {"zero exact-filter τ as the model's", 0, 1, 0, 0},
      {"negative exact-filter τ", kStatusBadParameters, 1, 0, -1e-3},
      {"zero muscle activation τ", kStatusBadParameters, 2, 0, 0},
      {"negative muscle deactivation τ", kStatusBadParameters, 2, 1, -0.04},
      {"unused third muscle parameter", 0, 2, 2, -5},
      {"NaN time", kStatusBadState, -1, 0, nan},
      {"infinite time", kStatusBadState, -1, 0, std::numeric_limits<double>::infinity()},
  };
  const std::int64_t n = static_cast<std::int64_t>(edits.size()) + 2;
  for (const CpuSimd simd : {CpuSimd::kScalar, CpuSimd::kAuto}) {
    Simulator<T> sim(model, n, {.cpu_simd = simd});
    for (std::int64_t i = 0; i < n; ++i) {
      sim.batch().ctrl().set(i, std::vector<T>{T(0.5), T(0.5), T(0.5)});
    }
    for (std::size_t e = 0; e < edits.size(); ++e) {
      const Edit& x = edits[e];
      if (x.actuator < 0) {
        sim.batch().time()[e] = x.value;
      } else {
        sim.batch().actuator_dynprm()(e, 3 * x.actuator + x.k) = static_cast<T>(x.value);
      }
    }
    sim.step(20);
    for (std::int64_t i = 0; i < n; ++i) {
      const bool edited = i < static_cast<std::int64_t>(edits.size());
      EXPECT_EQ(sim.batch().status()[i], edited ? edits[i].status : 0)
          << (edited ? edits[i].what : "unedited") << ", instance " << i;
      if (!edited || edits[i].status == 0) {
        for (const T q : sim.batch().qpos().get(i)) EXPECT_TRUE(std::isfinite(q)) << i;
      }
    }
    EXPECT_NE(sim.failures()[0].message().find("activation time constant"), std::string::npos);
  }
}

// Where the model's own inertia is no rigid body's (InertiaRule::kMassMatrix: body a breaks
// A + B >= C) or singular (body b, a point mass), its instances are not held to that rule: they
// may keep such an inertia or take another; the rules the model meets (a positive definite, b a
// rigid body's) still hold, and refused and accepted instances share packs
TYPED_TEST(Parameters, ModelInertiaOutsideTheRuleBindsNoInstance) {
  using T = TypeParam;
  ModelBuilder builder;
  builder.set_inertia_rule(InertiaRule::kMassMatrix);
  builder.add_body({.name = "a", .mass = 1, .inertia = {0.01, 0.02, 0.1, 0, 0, 0}});
  builder.add_joint("a", {.name = "ja", .axis = {0, 0, 1}});
  builder.add_body({.name = "b", .parent = "a", .pos = {0.3, 0, 0}, .mass = 1, .com = {0.5, 0, 0}});
  builder.add_joint("b", {.name = "jb", .axis = {0, 0, 1}});
  const Model model = builder.build();
  constexpr std::int64_t kN = 24;
  Simulator<T> sim(model, kN);
  Batch<T>& b = sim.batch();
  // taken: a farther from A + B >= C (1 mod 6), b a rod, rigid and singular (2 mod 6); refused:
  // a NaN moment (0), b's rigid-body rule, which its point mass meets (3), a negative mass (4),
  // a singular, where the model's is positive definite (5)
  for (std::int64_t i = 0; i < kN; ++i) {
    b.qvel()(i, 0) = T(0.2);
    if (i % 6 == 0) b.body_inertia()(i, 6 * 1 + 1) = std::numeric_limits<T>::quiet_NaN();
    if (i % 6 == 1) b.body_inertia()(i, 6 * 1 + 2) = T(0.5);
    if (i % 6 == 2) b.body_inertia()(i, 6 * 2 + 0) = b.body_inertia()(i, 6 * 2 + 1) = T(0.02);
    if (i % 6 == 3) b.body_inertia()(i, 6 * 2 + 0) = T(-1);
    if (i % 6 == 4) b.body_mass()(i, 2) = T(-1);
    if (i % 6 == 5) b.body_inertia()(i, 6 * 1 + 2) = T(0);
  }
  sim.step(3);
  for (std::int64_t i = 0; i < kN; ++i) {
    const bool refused = i % 6 == 0 || i % 6 >= 3;
    EXPECT_EQ(b.status()[i], refused ? int{kStatusBadParameters} : 0) << "instance " << i;
    EXPECT_NEAR(b.time()[i], refused ? 0.0 : 3 * model.timestep, 1e-12) << "instance " << i;
  }
}

// random inertia tensors, rotated, against the eigenvalue rule: every tensor clearly inside is
// accepted, every one clearly outside refused
TYPED_TEST(Parameters, InertiaRuleAgreesWithEigenvalues) {
  using T = TypeParam;
  const Model model = examples::pendulum();
  constexpr std::int64_t kN = 2000;
  Simulator<T> sim(model, kN);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> moment(0.0, 1.0), angle(-3.0, 3.0);
  std::vector<bool> expected_valid(kN), clear(kN);
  for (std::int64_t i = 0; i < kN; ++i) {
    // principal moments; a third of the tensors on the degenerate edge A + B = C (rods)
    Eigen::Vector3d p(moment(rng) + 0.01, moment(rng) + 0.01, 0);
    p[2] = i % 3 == 0 ? p[0] + p[1] : 1.6 * moment(rng) + 0.01;
    const Eigen::Matrix3d r = (Eigen::AngleAxisd(angle(rng), Eigen::Vector3d::UnitX()) *
                               Eigen::AngleAxisd(angle(rng), Eigen::Vector3d::UnitY()) *
                               Eigen::AngleAxisd(angle(rng), Eigen::Vector3d::UnitZ()))
                                  .toRotationMatrix();
    const Eigen::Matrix3d i3 = r * p.asDiagonal() * r.transpose();
    const std::vector<double> i6{i3(0, 0), i3(1, 1), i3(2, 2), i3(0, 1), i3(0, 2), i3(1, 2)};
    for (int k = 0; k < 6; ++k) sim.batch().body_inertia()(i, 6 + k) = static_cast<T>(i6[k]);
    const double scale = p.sum();
    expected_valid[i] = rigid_body_inertia(i6, 0) || i % 3 == 0;
    // the band where rounding decides is left out
    clear[i] = i % 3 == 0 || rigid_body_inertia(i6, -1e-4 * scale) ||
               !rigid_body_inertia(i6, 1e-4 * scale);
  }
  sim.forward();
  int checked = 0, refused = 0;
  for (std::int64_t i = 0; i < kN; ++i) {
    if (!clear[i]) continue;
    ++checked;
    const bool bad = sim.batch().status()[i] & kStatusBadParameters;
    refused += bad;
    EXPECT_EQ(!bad, expected_valid[i]) << "instance " << i;
  }
  EXPECT_GT(checked, kN * 9 / 10);
  EXPECT_GT(refused, kN / 10);
}

// A batch whose parameters were never handed out for writing holds the model's values, and the
// CPU backends then skip their check (Batch::parameters_exposed()).  Nothing zwang does itself
// hands them out; each writable route does, for good, and an invalid value written through it
// after calls without the check stops its instance at the next call, on both CPU backends.
TYPED_TEST(Parameters, EveryWritableRouteIsCheckedAfterCallsWithoutIt) {
  using T = TypeParam;
  const Model model = examples::chain({.damping = 0.3, .stiffness = 2, .armature = 0.05});
  constexpr std::int64_t kN = 16, kBad = 5;
  using Route = std::function<void(Batch<T>&)>;
  const std::vector<std::pair<const char*, Route>> routes = {
      {"body_mass()", [](Batch<T>& b) { b.body_mass()(kBad, 3) = T(-1); }},
      {"field(body_mass)", [](Batch<T>& b) { b.field(FieldId::body_mass)(kBad, 3) = T(-1); }},
      {"param_arena()",
       [](Batch<T>& b) {
         b.param_arena()[(b.layout().body_mass + 3) * b.padded_size() + kBad] = T(-1);
       }},
      {"param_span()",
       [](Batch<T>& b) {
         b.param_span()[(b.layout().body_mass + 3) * b.padded_size() + kBad] = T(-1);
       }},
  };
  for (const CpuSimd simd : {CpuSimd::kScalar, CpuSimd::kAuto}) {
    for (const auto& [name, write] : routes) {
      const std::string where = std::string(name) + (simd == CpuSimd::kScalar ? ", scalar" : "");
      Simulator<T> sim(model, kN, {.threads = 2, .cpu_simd = simd});
      Batch<T>& b = sim.batch();
      b.qvel()(kBad, 0) = T(0.5);
      sim.step(2);
      sim.forward();
      sim.reset(std::vector<std::int64_t>{1, 2});
      const Batch<T> copy(b);
      EXPECT_EQ(std::as_const(b).body_mass()(kBad, 3), static_cast<T>(model.body_mass[3]));
      std::vector<T> cinert(kN * derived_size(model, Derived::kCinert));
      derive(model, b, Derived::kCinert, std::span<T>(cinert), 1);
      EXPECT_FALSE(b.parameters_exposed()) << where;
      EXPECT_FALSE(copy.parameters_exposed()) << where;
      EXPECT_TRUE(sim.failures().empty()) << where;
      Batch<T> reset(copy);
      reset.reset_parameters(0, model);
      EXPECT_TRUE(reset.parameters_exposed()) << where;
      write(b);
      EXPECT_TRUE(b.parameters_exposed()) << where;
      EXPECT_TRUE(Batch<T>(b).parameters_exposed()) << where;
      sim.step(1);
      for (std::int64_t i = 0; i < kN; ++i) {
        EXPECT_EQ(b.status()[i], i == kBad ? int{kStatusBadParameters} : 0)
            << where << ", instance " << i;
      }
      EXPECT_DOUBLE_EQ(b.time()[kBad], 2 * model.timestep) << where;
    }
  }
}

// The skip rests on the model's values passing the rule in T: a mass beyond float's range is a
// valid double and an infinite float, so every float instance is refused from the first call
// without a parameter ever being handed out, and no double instance is.
TYPED_TEST(Parameters, ModelValuesBeyondTheScalarsRangeAreRefused) {
  using T = TypeParam;
  ModelBuilder builder;
  builder.add_body({.name = "heavy", .mass = 1e39, .inertia = {1e39, 1e39, 1e39, 0, 0, 0}});
  builder.add_joint("heavy", {.name = "hinge", .axis = {0, 1, 0}});
  const Model model = builder.build();
  for (const CpuSimd simd : {CpuSimd::kScalar, CpuSimd::kAuto}) {
    Simulator<T> sim(model, 9, {.threads = 1, .cpu_simd = simd});
    sim.step(2);
    EXPECT_FALSE(sim.batch().parameters_exposed());
    for (std::int64_t i = 0; i < sim.size(); ++i) {
      EXPECT_EQ(sim.batch().status()[i], sizeof(T) == 4 ? int{kStatusBadParameters} : 0)
          << "instance " << i << (simd == CpuSimd::kScalar ? ", scalar" : "");
    }
  }
}

}  // namespace
}  // namespace zwang::test
