// Models with tendons, shared by test_tendons.cc (against MuJoCo 2.2.2) and test_simd.cc.
#pragma once

namespace zwang::test {

// a three-link chain with fixed tendons: springs with and without springlength (the default
// is the length at qpos_spring, here moved by springref and ref), dampers, actuators of every
// shortcut and a general one through the tendons, beside a joint motor; tendon sensors
inline const char* kFixedTendons = R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="l1" pos="0 0 1">
      <joint name="j1" axis="0 1 0" springref="0.2" ref="0.1" stiffness="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="l2" pos="0.3 0 0">
        <joint name="j2" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0.1" size="0.04"/>
        <body name="l3" pos="0.3 0 0">
          <joint name="j3" type="slide" axis="1 0 0.2"/>
          <geom type="box" size="0.05 0.06 0.07"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="t1" stiffness="2" damping="0.5" springlength="0.3">
      <joint joint="j1" coef="1"/>
      <joint joint="j2" coef="-0.5"/>
    </fixed>
    <fixed name="t2" stiffness="1.5" damping="0.2">
      <joint joint="j1" coef="0.7"/>
      <joint joint="j3" coef="2"/>
    </fixed>
  </tendon>
  <actuator>
    <motor name="m0" tendon="t1" gear="2" ctrllimited="true" ctrlrange="-1 1"/>
    <position name="p1" tendon="t2" kp="5"/>
    <velocity name="v2" tendon="t1" kv="0.5" gear="1.5"/>
    <general name="g3" tendon="t2" gainprm="3" biastype="affine" biasprm="0.1 -1 -0.2"
             forcelimited="true" forcerange="-2 2"/>
    <motor joint="j3"/>
  </actuator>
  <sensor>
    <tendonpos tendon="t1"/>
    <tendonvel tendon="t2"/>
    <actuatorpos actuator="p1"/>
    <actuatorvel actuator="v2"/>
    <actuatorfrc actuator="g3"/>
  </sensor>
</mujoco>
)";

// spatial tendons through sites on a hinge-slide body, a ball-jointed child, a free body and the
// world, one with a pulley; springs, dampers and actuators on them
inline const char* kSpatialTendons = R"(<mujoco>
  <worldbody>
    <site name="anchor" pos="0 0 2"/>
    <body name="a" pos="0 0 1">
      <joint name="ja" axis="0 1 0"/>
      <joint name="jb" type="slide" axis="1 0 0"/>
      <geom type="box" size="0.1 0.12 0.14"/>
      <site name="s1" pos="0.1 0 0.1"/>
      <body name="b" pos="0.5 0 0">
        <joint name="jc" type="ball"/>
        <geom type="capsule" fromto="0 0 0 0.2 0.1 0" size="0.05"/>
        <site name="s2" pos="0 0.1 0.1"/>
      </body>
    </body>
    <body name="c" pos="1 0 1">
      <freejoint/>
      <geom type="box" size="0.1 0.2 0.15"/>
      <site name="s3" pos="0.05 0 0"/>
    </body>
  </worldbody>
  <tendon>
    <spatial name="rope" stiffness="3" damping="0.2" springlength="1.0">
      <site site="anchor"/>
      <site site="s1"/>
      <site site="s2"/>
    </spatial>
    <spatial name="block" damping="0.1" stiffness="0.5">
      <site site="s1"/>
      <site site="s3"/>
      <pulley divisor="2"/>
      <site site="anchor"/>
      <site site="s2"/>
    </spatial>
  </tendon>
  <actuator>
    <motor name="pull" tendon="block" gear="3"/>
    <position tendon="rope" kp="2"/>
  </actuator>
  <sensor>
    <tendonpos tendon="block"/>
    <tendonvel tendon="block"/>
    <actuatorvel actuator="pull"/>
  </sensor>
</mujoco>
)";

// spatial tendons wrapped around spheres and cylinders (MuJoCo's geom wrapping): a sphere in the
// world and on a moving body, a cylinder at the elbow (as MuJoCo's arm26), side sites outside
// and inside the geoms, a path through two wraps, a pulley after a wrap; springs, dampers and
// actuators on them.  The states of random_states wrap some paths and leave others straight.
inline const char* kWrapTendons = R"(<mujoco>
  <worldbody>
    <site name="w0" pos="-0.3 0 0.8"/>
    <site name="w_side" pos="0 -0.3 1.1"/>
    <geom name="ball" type="sphere" pos="0 0 1" size="0.08" contype="0" conaffinity="0"/>
    <body name="arm" pos="0 0 1">
      <joint name="h1" axis="0 1 0" damping="0.1"/>
      <joint name="s1" type="slide" axis="0 0 1"/>
      <geom type="capsule" fromto="0.1 0 0 0.4 0 0" size="0.03"/>
      <site name="a1" pos="0.3 0.02 0.06"/>
      <site name="a2" pos="0.3 -0.03 -0.06"/>
      <site name="a3" pos="0.2 0 0.1"/>
      <body name="fore" pos="0.4 0 0">
        <joint name="h2" axis="0 1 0"/>
        <joint name="h3" axis="1 0 0"/>
        <geom name="elbow" type="cylinder" size="0.05 0.04" euler="90 0 0"/>
        <geom name="knob" type="sphere" pos="0.15 0 0" size="0.04"/>
        <geom type="capsule" fromto="0.05 0 0 0.35 0 0" size="0.025"/>
        <site name="b1" pos="0.3 0.03 0.05"/>
        <site name="b2" pos="0.3 -0.02 -0.05"/>
        <site name="elbow_side" pos="0 0 -0.1"/>
        <site name="knob_in" pos="0.16 0 0.01"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <spatial name="over_ball" stiffness="3" damping="0.2">
      <site site="w0"/>
      <geom geom="ball"/>
      <site site="b1"/>
    </spatial>
    <spatial name="ball_side" damping="0.1">
      <site site="w0"/>
      <geom geom="ball" sidesite="w_side"/>
      <site site="a2"/>
    </spatial>
    <spatial name="elbow" stiffness="1">
      <site site="a1"/>
      <geom geom="elbow"/>
      <site site="b1"/>
    </spatial>
    <spatial name="elbow_side">
      <site site="a2"/>
      <geom geom="elbow" sidesite="elbow_side"/>
      <site site="b2"/>
    </spatial>
    <spatial name="knob_inside">
      <site site="a3"/>
      <geom geom="knob" sidesite="knob_in"/>
      <site site="b2"/>
    </spatial>
    <spatial name="two_wraps" damping="0.3">
      <site site="w0"/>
      <geom geom="ball" sidesite="w_side"/>
      <site site="a3"/>
      <geom geom="elbow" sidesite="elbow_side"/>
      <site site="b2"/>
      <pulley divisor="2"/>
      <site site="w0"/>
      <geom geom="ball"/>
      <site site="b1"/>
    </spatial>
  </tendon>
  <actuator>
    <motor name="pull" tendon="over_ball" gear="2"/>
    <position tendon="elbow" kp="3"/>
    <velocity tendon="two_wraps" kv="0.5"/>
  </actuator>
  <sensor>
    <tendonpos tendon="knob_inside"/>
    <tendonvel tendon="elbow_side"/>
    <actuatorpos actuator="pull"/>
  </sensor>
</mujoco>
)";

// MuJoCo 3's actuatorfrcrange on tendons: two actuators on a fixed tendon and two on a spatial
// one scaled together into the range, one with a forcerange of its own (not in MuJoCo 2.2.2:
// checked against MuJoCo 4.0 by python_shim/tests/test_tendon_actuator_range.py)
inline const char* kTendonForceRange = R"(<mujoco>
  <compiler autolimits="true"/>
  <worldbody>
    <site name="anchor" pos="0 0 1.5"/>
    <body name="a" pos="0 0 1">
      <joint name="j0" axis="0 1 0" damping="0.1"/>
      <geom type="capsule" fromto="0 0 0 0.4 0 0" size="0.04"/>
      <site name="tip" pos="0.4 0 0"/>
      <body name="b" pos="0.4 0 0">
        <joint name="j1" axis="0 1 0" damping="0.1"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.03"/>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="f" actuatorfrcrange="-1 0.5">
      <joint joint="j0" coef="1"/>
      <joint joint="j1" coef="-0.5"/>
    </fixed>
    <spatial name="s" actuatorfrcrange="-2 0">
      <site site="anchor"/>
      <site site="tip"/>
    </spatial>
  </tendon>
  <actuator>
    <motor tendon="f" gear="2" forcerange="-0.4 0.4"/>
    <position tendon="f" kp="3"/>
    <motor tendon="s"/>
    <velocity tendon="s" kv="2"/>
  </actuator>
</mujoco>
)";

// fixed tendon limits (margin, solref, solimp of their own), tendon friction loss, a limited
// tendon on one slide, and a motor driving the chain into the first limit
inline const char* kTendonLimits = R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="l1" pos="0 0 1">
      <joint name="j1" axis="0 1 0" damping="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="l2" pos="0.3 0 0">
        <joint name="j2" axis="0 1 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="l3" pos="0.3 0 0">
          <joint name="j3" type="slide" axis="1 0 0"/>
          <geom type="box" size="0.05 0.05 0.05"/>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="lim" limited="true" range="-0.5 0.4" margin="0.05" solreflimit="0.03 0.9"
           solimplimit="0.8 0.95 0.01 0.4 3">
      <joint joint="j1" coef="1"/>
      <joint joint="j2" coef="0.5"/>
    </fixed>
    <fixed name="fric" frictionloss="0.4" solreffriction="0.05 1">
      <joint joint="j2" coef="1"/>
      <joint joint="j3" coef="-1"/>
    </fixed>
    <fixed name="lim2" limited="true" range="-0.1 0.1">
      <joint joint="j3" coef="1"/>
    </fixed>
  </tendon>
  <actuator>
    <motor tendon="lim" gear="2"/>
  </actuator>
  <sensor>
    <tendonlimitpos tendon="lim"/>
    <tendonlimitvel tendon="lim"/>
    <tendonlimitfrc tendon="lim"/>
    <tendonlimitfrc tendon="lim2"/>
    <tendonpos tendon="fric"/>
  </sensor>
</mujoco>
)";

// tendon equalities: two tendons coupled by a polynomial, one tendon held at length0 + c0;
// qpos0 moved by ref so that the lengths at qpos0 are not zero
inline const char* kTendonEquality = R"(<mujoco>
  <compiler angle="radian"/>
  <worldbody>
    <body name="l1" pos="0 0 1">
      <joint name="j1" axis="0 1 0" ref="0.2"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="l2" pos="0.3 0 0">
        <joint name="j2" axis="1 0 0"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
        <body name="l3" pos="0.3 0 0">
          <joint name="j3" type="slide" axis="1 0 0" ref="0.1"/>
          <geom type="box" size="0.05 0.05 0.05"/>
          <body name="l4" pos="0 0 -0.2">
            <joint name="j4" axis="0 1 0"/>
            <geom type="box" size="0.04 0.05 0.06"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <tendon>
    <fixed name="ta">
      <joint joint="j1" coef="1"/>
      <joint joint="j2" coef="1"/>
    </fixed>
    <fixed name="tb">
      <joint joint="j3" coef="2"/>
    </fixed>
    <fixed name="tc">
      <joint joint="j4" coef="1"/>
      <joint joint="j1" coef="0.3"/>
    </fixed>
  </tendon>
  <equality>
    <tendon tendon1="ta" tendon2="tb" polycoef="0.1 0.5 0.2 0.1 0"/>
    <tendon tendon1="tc" polycoef="0.05 0 0 0 0" solref="0.05 1"/>
  </equality>
</mujoco>
)";

// dm_control's ball_in_cup, its cup and ball on slides: a spatial tendon between two sites,
// limited to [0, 0.3]; a second one with a pulley, limited and with friction loss
inline const char* kBallInCup = R"(<mujoco>
  <worldbody>
    <body name="cup" pos="0 0 .6">
      <joint name="cup_x" type="slide" axis="1 0 0" damping="1"/>
      <joint name="cup_z" type="slide" axis="0 0 1" damping="1"/>
      <geom type="capsule" fromto="-.05 0 0 .05 0 0" size=".02" mass=".5"/>
      <site name="point" pos="0 0 .05"/>
      <site name="rim" pos="0.05 0 .02"/>
    </body>
    <body name="ball" pos="0 0 .2">
      <joint name="ball_x" type="slide" axis="1 0 0"/>
      <joint name="ball_z" type="slide" axis="0 0 1"/>
      <joint name="ball_y" axis="0 1 0"/>
      <geom type="sphere" size=".025" mass=".1"/>
      <site name="ball" pos="0.01 0 0"/>
    </body>
    <site name="top" pos="0 0 1"/>
  </worldbody>
  <tendon>
    <spatial name="string" limited="true" range="0 0.3" width="0.003">
      <site site="ball"/>
      <site site="point"/>
    </spatial>
    <spatial name="hoist" limited="true" range="0.2 1.1" margin="0.02" frictionloss="0.05">
      <site site="rim"/>
      <site site="top"/>
      <pulley divisor="3"/>
      <site site="top"/>
      <site site="ball"/>
    </spatial>
  </tendon>
  <actuator>
    <motor joint="cup_x"/>
    <motor tendon="string" gear="-1"/>
  </actuator>
</mujoco>
)";

}  // namespace zwang::test
