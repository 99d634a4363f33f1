// MJCF models with sensors, shared by test_sensors.cc (against MuJoCo 2.2.2) and test_simd.cc.
#pragma once

namespace zwang::test {

// every sensor type zwang computes, on hinge, slide, ball and free joints, sites, geoms and
// bodies, in world and reference frames, with cutoffs; contacts off, no limits; one user sensor
// (MuJoCo leaves it to a callback, zwang to the user)
inline constexpr const char* kSensorModel = R"(<mujoco model="sensors">
  <option gravity="0.3 -0.2 -9.81" magnetic="0.1 -0.4 0.3">
    <flag contact="disable"/>
  </option>
  <worldbody>
    <site name="world_site" pos="0.2 0.1 0.3" euler="10 20 30"/>
    <body name="arm" pos="0 0 1" euler="20 0 10">
      <joint name="hinge" axis="0 1 0" pos="0 0 0.1" damping="0"/>
      <geom name="arm_geom" type="capsule" fromto="0 0 0 0.4 0 -0.3" size="0.05"/>
      <site name="arm_site" pos="0.2 0.05 -0.1" euler="30 -20 50"/>
      <body name="slider" pos="0.4 0 -0.3">
        <joint name="slide" type="slide" axis="1 0.2 0"/>
        <geom name="slider_geom" type="box" size="0.05 0.04 0.03" pos="0.01 0.02 0"/>
        <site name="slider_site" pos="0.03 -0.02 0.01" quat="0.9 0.1 -0.3 0.2"/>
        <body name="ball_body" pos="0.1 0 -0.1">
          <joint name="ball" type="ball" pos="0 0 0.05"/>
          <geom name="ball_geom" type="ellipsoid" size="0.05 0.03 0.08" pos="0 0.02 -0.05"
                euler="15 -25 40"/>
          <site name="ball_site" pos="0.02 0.03 -0.1" euler="-40 10 70"/>
        </body>
      </body>
    </body>
    <body name="free_body" pos="1 0 1">
      <freejoint name="free"/>
      <geom name="free_geom" type="box" size="0.1 0.2 0.15" pos="0.02 0 0.01" euler="5 10 15"/>
      <site name="free_site" pos="0.1 -0.05 0.08" euler="50 10 -30"/>
      <body name="tail" pos="0 0 -0.3">
        <joint name="tail_hinge" axis="1 0 0"/>
        <geom name="tail_geom" type="sphere" size="0.05" pos="0 0 -0.1"/>
        <site name="tail_site" pos="0 0.02 -0.15"/>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m_hinge" joint="hinge" gear="2.5"/>
    <position name="p_slide" joint="slide" kp="30" gear="0.7"/>
    <motor name="m_tail" joint="tail_hinge" ctrlrange="-1 1" ctrllimited="true"/>
  </actuator>
  <tendon>
    <fixed name="tendon">
      <joint joint="hinge" coef="0.5"/>
      <joint joint="slide" coef="-2"/>
    </fixed>
  </tendon>
  <sensor>
    <accelerometer name="acc_arm" site="arm_site"/>
    <accelerometer site="ball_site"/>
    <accelerometer site="free_site" cutoff="3"/>
    <accelerometer site="tail_site"/>
    <accelerometer site="world_site"/>
    <velocimeter site="ball_site"/>
    <velocimeter site="free_site"/>
    <gyro site="ball_site"/>
    <gyro site="tail_site" noise="0.01"/>
    <force site="slider_site"/>
    <force site="ball_site"/>
    <force site="free_site"/>
    <force site="tail_site"/>
    <torque site="arm_site"/>
    <torque site="ball_site"/>
    <torque site="tail_site"/>
    <torque site="world_site"/>
    <magnetometer site="arm_site"/>
    <magnetometer site="free_site"/>
    <jointpos joint="hinge"/>
    <jointpos joint="slide"/>
    <jointpos joint="tail_hinge"/>
    <jointvel joint="hinge" cutoff="0.5"/>
    <jointvel joint="slide"/>
    <tendonpos tendon="tendon"/>
    <tendonvel tendon="tendon"/>
    <actuatorpos actuator="m_hinge"/>
    <actuatorpos actuator="p_slide"/>
    <actuatorvel actuator="p_slide"/>
    <actuatorvel actuator="m_tail"/>
    <actuatorfrc actuator="m_hinge"/>
    <actuatorfrc actuator="p_slide" cutoff="2"/>
    <actuatorfrc actuator="m_tail"/>
    <ballquat joint="ball"/>
    <ballangvel joint="ball"/>
    <framepos objtype="xbody" objname="arm"/>
    <framepos objtype="body" objname="ball_body"/>
    <framepos objtype="geom" objname="ball_geom"/>
    <framepos objtype="site" objname="free_site"/>
    <framepos objtype="site" objname="tail_site" reftype="xbody" refname="free_body"/>
    <framepos objtype="xbody" objname="slider" reftype="geom" refname="arm_geom"/>
    <framepos objtype="body" objname="tail" reftype="site" refname="ball_site"/>
    <framequat objtype="xbody" objname="ball_body"/>
    <framequat objtype="geom" objname="free_geom"/>
    <framequat objtype="site" objname="ball_site" reftype="xbody" refname="arm"/>
    <framequat objtype="xbody" objname="tail" reftype="site" refname="world_site"/>
    <framequat objtype="geom" objname="ball_geom" reftype="geom" refname="tail_geom"/>
    <framexaxis objtype="site" objname="arm_site"/>
    <framexaxis objtype="xbody" objname="tail" reftype="site" refname="slider_site"/>
    <frameyaxis objtype="geom" objname="ball_geom"/>
    <frameyaxis objtype="site" objname="free_site" reftype="geom" refname="slider_geom"/>
    <framezaxis objtype="xbody" objname="free_body"/>
    <framezaxis objtype="geom" objname="arm_geom" reftype="xbody" refname="ball_body"/>
    <framelinvel objtype="body" objname="ball_body"/>
    <framelinvel objtype="xbody" objname="tail"/>
    <framelinvel objtype="geom" objname="slider_geom"/>
    <framelinvel objtype="site" objname="free_site"/>
    <framelinvel objtype="site" objname="ball_site" reftype="site" refname="tail_site"/>
    <framelinvel objtype="body" objname="tail" reftype="xbody" refname="arm"/>
    <framelinvel objtype="geom" objname="free_geom" reftype="geom" refname="ball_geom"/>
    <frameangvel objtype="body" objname="slider"/>
    <frameangvel objtype="site" objname="ball_site"/>
    <frameangvel objtype="xbody" objname="tail" reftype="site" refname="arm_site"/>
    <frameangvel objtype="geom" objname="ball_geom" reftype="xbody" refname="free_body"/>
    <framelinacc objtype="body" objname="ball_body"/>
    <framelinacc objtype="xbody" objname="tail"/>
    <framelinacc objtype="geom" objname="slider_geom"/>
    <framelinacc objtype="site" objname="free_site"/>
    <frameangacc objtype="body" objname="tail"/>
    <frameangacc objtype="site" objname="ball_site"/>
    <subtreecom body="world"/>
    <subtreecom body="arm"/>
    <subtreecom body="ball_body"/>
    <subtreecom body="free_body"/>
    <subtreelinvel body="world"/>
    <subtreelinvel body="arm"/>
    <subtreelinvel body="free_body"/>
    <subtreelinvel body="tail"/>
    <subtreeangmom body="world"/>
    <subtreeangmom body="arm"/>
    <subtreeangmom body="slider"/>
    <subtreeangmom body="free_body"/>
    <clock name="clock" cutoff="0.8"/>
    <user name="user" objtype="body" objname="arm" dim="2" needstage="acc" datatype="real"/>
  </sensor>
</mujoco>
)";

// jointlimit sensors on limited hinge, slide and ball joints with margins, and the forces of
// actuators with force ranges; contacts off
inline constexpr const char* kLimitSensorModel = R"(<mujoco model="limit sensors">
  <option>
    <flag contact="disable"/>
  </option>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="hinge" axis="0 1 0" limited="true" range="-30 20" margin="0.05"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.04"/>
      <body name="b" pos="0.3 0 0">
        <joint name="slide" type="slide" axis="1 0 0" limited="true" range="-0.1 0.05"/>
        <geom type="box" size="0.05 0.05 0.05"/>
        <body name="c" pos="0.1 0 0">
          <joint name="ball" type="ball" limited="true" range="0 40" margin="0.1"/>
          <geom type="capsule" fromto="0 0 0 0 0 -0.3" size="0.03"/>
          <site name="tip" pos="0 0 -0.3"/>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <motor name="m" joint="hinge" forcelimited="true" forcerange="-0.4 0.4"/>
  </actuator>
  <sensor>
    <jointlimitpos joint="hinge"/>
    <jointlimitvel joint="hinge"/>
    <jointlimitfrc joint="hinge"/>
    <jointlimitpos joint="slide"/>
    <jointlimitvel joint="slide"/>
    <jointlimitfrc joint="slide"/>
    <jointlimitpos joint="ball"/>
    <jointlimitvel joint="ball"/>
    <jointlimitfrc joint="ball" cutoff="1"/>
    <actuatorfrc actuator="m"/>
    <accelerometer site="tip"/>
  </sensor>
</mujoco>
)";

// touch sensors on boxes, capsules, ellipsoids, cylinders and spheres of sites, on bodies that
// are the first geom of their contacts (the ball on the box) and the second (on the floor); the
// bottom zone reaches 2 mm past the box's bottom face, so that a corner's contact is inside it and
// not on its side, where rounding would decide whether the zone sees it
inline constexpr const char* kTouchModel = R"(<mujoco>
  <option timestep="0.002"/>
  <worldbody>
    <geom name="floor" type="plane" size="2 2 0.1"/>
    <body name="box" pos="0 0 0.06">
      <freejoint/>
      <geom type="box" size="0.1 0.08 0.05" mass="1"/>
      <site name="bottom" type="box" size="0.102 0.082 0.01" pos="0 0 -0.05"/>
      <site name="corner" type="sphere" size="0.03" pos="0.1 0.08 -0.05"/>
      <site name="edge" type="capsule" fromto="-0.1 -0.08 -0.05 -0.1 0.08 -0.05" size="0.02"/>
      <site name="top" type="cylinder" size="0.05 0.01" pos="0 0 0.05"/>
      <site name="side" type="ellipsoid" size="0.12 0.04 0.02" pos="0 0.08 -0.05"/>
      <site name="away" type="sphere" size="0.02" pos="0 0 -0.03"/>
    </body>
    <body name="ball" pos="0.02 0.01 0.2">
      <freejoint/>
      <geom type="sphere" size="0.04" mass="0.5"/>
      <site name="ball" size="0.05"/>
    </body>
    <body name="rod" pos="0.4 0 0.05" euler="0 90 0">
      <freejoint/>
      <geom type="capsule" size="0.03 0.1" mass="0.3"/>
      <site name="rod" type="capsule" size="0.035 0.1"/>
      <site name="rod_end" type="box" size="0.04 0.04 0.02" pos="0 0 0.1"/>
    </body>
  </worldbody>
  <sensor>
    <touch site="bottom"/><touch site="corner"/><touch site="edge"/><touch site="top"/>
    <touch site="side"/><touch site="away" cutoff="1"/><touch site="ball"/><touch site="rod"/>
    <touch site="rod_end"/>
  </sensor>
</mujoco>)";

// rangefinders in six directions on a free body among a plane and geoms of every primitive type
// (two of them on a hinge), one invisible by its rgba, one by its material, one whose visible
// material outweighs its transparent rgba, and a geom of the rangefinders' own body, which rays
// pass through
inline constexpr const char* kRangefinderModel = R"(<mujoco>
  <asset>
    <material name="glass" rgba="1 1 1 0"/>
    <material name="paint" rgba="1 0 0 1"/>
  </asset>
  <worldbody>
    <geom name="floor" type="plane" size="3 3 0.1" pos="0 0 -1.5"/>
    <geom name="ball" type="sphere" size="0.3" pos="0.8 0.2 0"/>
    <geom name="pill" type="capsule" size="0.15 0.4" pos="-0.7 0.5 0.3" euler="30 60 0"/>
    <geom name="egg" type="ellipsoid" size="0.2 0.35 0.5" pos="0 -0.9 0.1" euler="10 0 40"/>
    <geom name="can" type="cylinder" size="0.25 0.3" pos="0.1 0.8 -0.6" euler="0 80 10"/>
    <geom name="crate" type="box" size="0.3 0.2 0.4" pos="-0.6 -0.5 -0.7" euler="20 30 50"/>
    <geom name="ghost" type="sphere" size="0.5" pos="0 0 1.2" rgba="1 1 1 0"/>
    <geom name="window" type="box" size="0.6 0.6 0.05" pos="0 0 -1.1" material="glass"/>
    <geom name="red" type="sphere" size="0.3" pos="-0.9 0 -0.2" rgba="1 1 1 0" material="paint"/>
    <body name="arm" pos="0.5 -0.5 0.6">
      <joint name="swing" axis="1 1 0"/>
      <geom type="box" size="0.3 0.1 0.1" pos="0.3 0 0"/>
      <geom type="capsule" fromto="0 0 0 0 0.5 0.2" size="0.08"/>
    </body>
    <body name="scanner">
      <freejoint/>
      <geom type="sphere" size="0.1"/>
      <site name="up"/>
      <site name="down" euler="180 0 0"/>
      <site name="east" euler="0 90 0"/>
      <site name="west" euler="0 -90 0"/>
      <site name="north" euler="-90 0 0"/>
      <site name="south" euler="90 0 0"/>
    </body>
  </worldbody>
  <sensor>
    <rangefinder site="up"/><rangefinder site="down"/><rangefinder site="east"/>
    <rangefinder site="west" cutoff="1"/><rangefinder site="north"/><rangefinder site="south"/>
  </sensor>
</mujoco>)";

}  // namespace zwang::test
