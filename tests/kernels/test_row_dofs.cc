// The dof range of each constraint row (kernels/row_dofs.h, host/model/constraint_plan.cc) holds
// every nonzero column of the row that the row builders write: every model case and a model with
// every row type (hard and soft connect, weld to a body and to a mocap body, joint equalities
// with and without a second joint, a drive, a knife edge, a rolling sphere, ball, hinge and
// slide limits, friction loss, a fixed tendon's limits, condim 3 and 6 contacts with a plane, in
// each cone) at random states: each row of efc_J read outside its range must be exactly zero.
// The solver's products skip those columns, so a range too narrow would change the physics; one
// no narrower than nv would save nothing, so the test also asks that the ranges of
// humanoid.xml's contacts and limits are narrower than its nv.
#include <gtest/gtest.h>

#include <random>

#include "group_arenas.h"
#include "host/model/arrays.hpp"
#include "kernels/group.h"
#include "kernels/pipeline.h"
#include "kernels/row_dofs.h"
#include "kernels/status.h"
#include "model_cases.h"
#include "zwang/loaders.hpp"

namespace zwang::test {
namespace {

// every kind of row: hard rows (drive, connect, knife edge, rolling sphere), soft equalities of
// every type, limits, friction loss, a tendon, and contacts of condim 3 and 6 with the plane
constexpr const char* kEveryRow = R"(<mujoco>
  <compiler angle="radian"/>
  <custom>
    <numeric name="drive:h1" data="0.1 0.2 0.3 4 0.5"/>
    <numeric name="hard:cc" data="1"/>
    <numeric name="knife_edge:cart" data="0 0 -0.1 0 2 0" size="6"/>
    <numeric name="rolling_sphere:ball" data="0.1 0"/>
  </custom>
  <worldbody>
    <geom type="plane" size="5 5 0.1" condim="3"/>
    <body name="cart" pos="0 0 0.3">
      <freejoint/>
      <geom type="box" size="0.2 0.1 0.05"/>
      <body name="arm" pos="0.3 0 0">
        <joint name="h1" axis="0 1 0"/>
        <geom size="0.05"/>
      </body>
    </body>
    <body name="ball" pos="1 0 0.1">
      <freejoint/>
      <geom size="0.1"/>
    </body>
    <body name="rod" pos="0 1 0.4">
      <joint name="h2" frictionloss="0.1"/>
      <joint name="h3" axis="1 0 0" limited="true" range="-0.3 0.3"/>
      <geom type="capsule" size="0.05 0.2" condim="6"/>
      <body name="tip" pos="0 0 -0.3">
        <joint name="b1" type="ball" limited="true" range="0 0.4"/>
        <geom type="capsule" size="0.04 0.1"/>
        <body name="end" pos="0 0 -0.2">
          <joint name="h4" limited="true" range="-0.5 0.5"/>
          <geom size="0.05"/>
        </body>
      </body>
    </body>
    <body name="twin" pos="-1 0 0.4">
      <joint name="s1" type="slide" axis="0 0 1" limited="true" range="-0.2 0.2"/>
      <joint name="h5" axis="0 1 0"/>
      <geom type="box" size="0.1 0.1 0.1"/>
      <body name="twin_arm" pos="0 0 -0.2">
        <joint name="h6"/>
        <geom type="capsule" size="0.03 0.1"/>
      </body>
    </body>
    <body name="target" mocap="true" pos="-1 1 0.5"/>
  </worldbody>
  <tendon>
    <fixed name="t" limited="true" range="-0.1 0.1">
      <joint joint="h4" coef="1"/>
      <joint joint="h6" coef="-0.5"/>
    </fixed>
  </tendon>
  <equality>
    <connect name="cc" body1="rod" body2="arm" anchor="0 0 0.2"/>
    <connect body1="ball" anchor="0 0 0"/>
    <weld body1="twin_arm" body2="end"/>
    <weld body1="twin" body2="target"/>
    <joint joint1="h3" joint2="h5"/>
    <joint joint1="h6"/>
  </equality>
</mujoco>
)";

std::vector<ModelCase> every_row_cases() {
  std::vector<ModelCase> out;
  for (Cone cone : {Cone::kPyramidal, Cone::kElliptic}) {
    Model m = load_mjcf_string(kEveryRow, "every_row.xml").model;
    m.cone = cone;
    m.validate();
    out.push_back({cone == Cone::kElliptic ? "every_row_elliptic" : "every_row", std::move(m)});
  }
  return out;
}

TEST(RowDofs, HoldEveryNonzeroColumn) {
  int narrow_contacts = 0, narrow_limits = 0;
  std::vector<ModelCase> cases = model_cases();
  for (ModelCase& c : every_row_cases()) cases.push_back(std::move(c));
  for (const ModelCase& c : cases) {
    SCOPED_TRACE(c.name);
    const ModelArrays<double> arrays(c.model);
    const ModelView<double> view = arrays.view();
    const int nv = view.s.nv;
    std::mt19937 rng(11);
    int checked = 0, contacts = 0;
    for (int trial = 0; trial < 5; ++trial) {
      Arenas<double> a(c.model, view, rng);
      const Instance<double> d = a.instance(view);
      Solo g;
      forward(view, d, g);
      // a state the step refuses (a hard conflict, a failed factor) has no rows to check
      if ((a.status() & kStatusStopping) != 0) continue;
      ++checked;
      const int ncon = view.s.nconmax > 0 ? static_cast<int>(d.ncon()[0]) : 0;
      contacts += ncon;
      const int nefc = view.s.nefc - (view.s.nconmax - ncon) * view.s.ncon_rows;
      for (int r = 0; r < nefc; ++r) {
        const RowDofs dofs = row_dofs(view, d, r);
        ASSERT_LE(0, dofs.lo) << "row " << r;
        ASSERT_LE(dofs.lo, dofs.hi) << "row " << r;
        ASSERT_LE(dofs.hi, nv) << "row " << r;
        for (int i = 0; i < nv; ++i) {
          if (i >= dofs.lo && i < dofs.hi) continue;
          EXPECT_EQ(d.efc_J()[r * nv + i], 0.0)
              << "row " << r << " (kind " << view.efc_kind[r] << "), dof " << i << " outside ["
              << dofs.lo << ", " << dofs.hi << ")";
        }
        if (c.name == "humanoid_contacts" && dofs.hi - dofs.lo < nv) {
          const bool contact = r >= view.contact_efcadr;
          narrow_contacts += contact ? 1 : 0;
          narrow_limits += !contact && view.efc_kind[r] == kEfcLimit ? 1 : 0;
        }
      }
    }
    EXPECT_GT(checked, 0);
    if (c.name.starts_with("every_row")) {
      EXPECT_GT(contacts, 0);
    }
  }
  if (std::filesystem::exists(humanoid_xml())) {
    EXPECT_GT(narrow_contacts, 0);
    EXPECT_GT(narrow_limits, 0);
  }
}

}  // namespace
}  // namespace zwang::test
