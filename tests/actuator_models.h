// Models with actuator dynamics (tests/kernels/test_actuator_dynamics.cc, test_simd.cc), as
// MuJoCo 2.2.2 reads them: the actuators without dynamics come first, as 2.2.2 requires.
#pragma once

namespace zwang::test {

// a hinge, hinge, slide chain under gravity with a motor, an affine gain and bias, an
// integrator clamped to its actrange, a filter, a cylinder and an integrator with an affine gain
inline constexpr const char* kActuatorDynamicsModel = R"(<mujoco model="actuator dynamics">
  <option timestep="0.002"/>
  <default>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="h2" type="hinge" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
        <body name="c" pos="0.3 0 0">
          <joint name="s3" type="slide" axis="1 0 0"/>
          <geom type="box" size="0.05 0.05 0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="motor" joint="h1" gear="2" ctrllimited="true" ctrlrange="-1 1"/>
    <general name="affine" joint="h2" gaintype="affine" gainprm="2 0.5 -0.3" biastype="affine"
             biasprm="0.1 -1 -0.2"/>
    <general name="integrator" joint="h1" dyntype="integrator" gainprm="3" actlimited="true"
             actrange="-0.5 0.8"/>
    <general name="filter" joint="h2" dyntype="filter" dynprm="0.05" gainprm="4" biastype="affine"
             biasprm="0 -2 -0.1" ctrllimited="true" ctrlrange="-1 1"/>
    <cylinder name="cylinder" joint="s3" timeconst="0.2" diameter="0.3" bias="0.5 -3 -0.4"/>
    <general name="integrator2" joint="s3" dyntype="integrator" gaintype="affine"
             gainprm="1 0.2 0.1" gear="1.5"/>
  </actuator>
</mujoco>
)";

// muscles: the length range from the joint's limits (uselimit), given, and a general actuator
// with muscle gain, bias and dynamics whose bias has numbers of its own
inline constexpr const char* kMuscleModel = R"(<mujoco model="muscles">
  <compiler><lengthrange uselimit="true"/></compiler>
  <option timestep="0.002"/>
  <default>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" limited="true" range="-60 60" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="s2" type="slide" axis="1 0 0"/>
        <geom type="box" size="0.05 0.05 0.05"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <muscle name="m1" joint="h1" gear="1.2"/>
    <muscle name="m2" joint="s2" lengthrange="-0.2 0.3" force="50" timeconst="0.02 0.05"
            range="0.7 1.1" lmin="0.4" lmax="1.7" vmax="2" fpmax="1.5" fvmax="1.3"/>
    <general name="g3" joint="h1" dyntype="muscle" gaintype="muscle" biastype="muscle"
             dynprm="0.01 0.04" gainprm="0.75 1.05 -1 100 0.5 1.6 1.5 1.3 1.2"
             biasprm="0.8 1.0 -1 150 0.5 1.5 1.5 1.2 1.2" lengthrange="-0.5 0.5"/>
  </actuator>
</mujoco>
)";

// actuators through tendons: muscles on a limited fixed tendon (its range by uselimit) and on a
// spatial one (F0 from acc0 along the tendon's moment), a filter as dm_control's quadruped has
inline constexpr const char* kTendonActuatorModel = R"(<mujoco model="tendon actuators">
  <compiler><lengthrange uselimit="true"/></compiler>
  <option timestep="0.002"/>
  <default>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <site name="anchor" pos="0.1 0 1.2"/>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" limited="true" range="-60 60" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="s2" type="slide" axis="1 0 0"/>
        <geom type="box" size="0.05 0.05 0.05"/>
        <site name="tip" pos="0.05 0 0"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="pair" limited="true" range="-0.8 0.8">
      <joint joint="h1" coef="1"/>
      <joint joint="s2" coef="0.5"/>
    </fixed>
    <spatial name="cable">
      <site site="anchor"/>
      <site site="tip"/>
    </spatial>
  </tendon>
  <actuator>
    <muscle name="m1" tendon="pair" gear="1.1"/>
    <muscle name="m2" tendon="cable" lengthrange="0.1 0.7"/>
    <general name="g3" tendon="pair" dyntype="filter" dynprm="0.1" gainprm="10" biastype="affine"
             biasprm="0 -10"/>
  </actuator>
</mujoco>
)";

// MuJoCo 3's filterexact and actearly beside a muscle (zwang and MuJoCo 3 read them, 2.2.2 does
// not)
inline constexpr const char* kFilterExactModel = R"(<mujoco model="filterexact">
  <compiler><lengthrange uselimit="true"/></compiler>
  <default>
    <geom contype="0" conaffinity="0"/>
  </default>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="h1" type="hinge" axis="0 1 0" limited="true" range="-60 60"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
    </body>
  </worldbody>
  <actuator>
    <general name="exact" joint="h1" dyntype="filterexact" dynprm="0.03" gainprm="2"
             actlimited="true" actrange="-0.4 0.9"/>
    <general name="filter" joint="h1" dyntype="filter" dynprm="0.05" actearly="true"/>
    <muscle name="muscle" joint="h1"/>
  </actuator>
</mujoco>
)";

}  // namespace zwang::test
