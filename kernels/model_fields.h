// The Model's arrays, each once: where the kernels see it, its element type, name, shape (an
// expression of the Model's counts, then the widths of a row) and meaning. From this table come
// the Model's declaration (include/zwang/model.hpp), Model::validate()'s size checks, ModelView
// (kernels/model_view.h), the packed arrays of a backend (host/model/arrays.cc) and the Python
// Model's properties. Adding an array is one row here and the line of ModelBuilder::build()
// that fills it.
//
//   X(use, type, name, (rows[, width...]), "meaning")
//   use:  view_int   the kernels read it, as const int* (an enum as its number)
//         view_real  the kernels read it, in the backend's real type
//         host       only the host reads it
// Names follow MuJoCo's mjModel where they mean the same thing.
#pragma once

#define ZW_MODEL_ARRAYS(X)                                                                         \
  X(host, std::string, body_name, (nbody), "name, \"\" for an unnamed body")                       \
  X(view_int, int, body_parentid, (nbody),                                                         \
    "parent body; the world's is -1 (in Python 0, as MuJoCo's)")                                   \
  X(view_int, int, body_jntadr, (nbody), "first joint")                                            \
  X(view_int, int, body_jntnum, (nbody), "joints")                                                 \
  X(host, int, body_dofadr, (nbody), "first own dof, -1 if none")                                  \
  X(host, int, body_dofnum, (nbody), "own dofs")                                                   \
  X(view_int, int, body_treeadr, (nbody), "first entry in tree_dof and in the Jacobian columns")   \
  X(view_int, int, body_treenum, (nbody), "dofs from the root to the body, its own included")      \
  X(view_real, double, body_pos, (nbody, 3), "frame origin in the parent frame")                   \
  X(view_real, double, body_quat, (nbody, 4),                                                      \
    "frame orientation in the parent frame, unit, w x y z")                                        \
  X(view_real, double, body_mass, (nbody),                                                         \
    "mass (kg); each instance's is a parameter (Simulator.params)")                                \
  X(host, double, body_ipos, (nbody, 3), "centre of mass in the body frame")                       \
  X(view_real, double, body_inertia, (nbody, 6),                                                   \
    "inertia about the COM, body frame: xx yy zz xy xz yz (kg m²); a parameter per instance")      \
  X(view_real, double, body_iquat, (nbody, 4),                                                     \
    "principal axes of inertia in the body frame, w x y z (MuJoCo's body_iquat): the frame of "    \
    "the fluid forces' inertia box, whose moments are each instance's inertia there")              \
  X(view_int, int, body_fluidshape, (nbody),                                                       \
    "1: its geoms with fluidshape ellipsoid feel the fluid forces, not its inertia box")           \
  X(host, double, body_gravcomp, (nbody), "gravity compensation, a fraction of m g")               \
  X(view_int, int, body_mocapid, (nbody), "index in mocap_pos and mocap_quat, -1 if none")         \
  X(host, std::string, jnt_name, (njnt), "name")                                                   \
  X(view_int, JointType, jnt_type, (njnt),                                                         \
    "JointType: free 0, ball 1, slide 2, hinge 3 (MuJoCo's mjtJoint)")                             \
  X(host, int, jnt_bodyid, (njnt), "body of the joint")                                            \
  X(view_int, int, jnt_qposadr, (njnt), "first coordinate in qpos")                                \
  X(view_int, int, jnt_dofadr, (njnt), "first dof in qvel")                                        \
  X(view_real, double, jnt_pos, (njnt, 3), "anchor in the body frame")                             \
  X(view_real, double, jnt_axis, (njnt, 3), "unit axis in the body frame, hinge and slide")        \
  X(host, double, jnt_stiffness, (njnt), "spring stiffness")                                       \
  X(view_int, int, jnt_limited, (njnt), "1: the range limits the joint")                           \
  X(view_real, double, jnt_range, (njnt, 2), "lower and upper limit")                              \
  X(view_real, double, jnt_margin, (njnt), "limit rows exist below this distance")                 \
  X(view_real, double, jnt_solref, (njnt, 2), "limit rows")                                        \
  X(view_real, double, jnt_solimp, (njnt, 5), "limit rows")                                        \
  X(view_int, int, jnt_actfrclimited, (njnt),                                                      \
    "1: the actuators' total force on the joint clamped")                                          \
  X(view_real, double, jnt_actfrcrange, (njnt, 2),                                                 \
    "range of the actuators' total force, hinge and slide")                                        \
  X(view_int, int, jnt_actgravcomp, (njnt),                                                        \
    "1: the gravity compensation of its dofs is an actuator force (MuJoCo 3's actuatorgravcomp)")  \
  X(view_int, int, jnt_freebody, (njnt),                                                           \
    "body of a free joint without other joints below it (its tree moves as one rigid body), "      \
    "else -1")                                                                                     \
  X(view_real, double, qpos0, (nq), "configuration where hinge and slide angles are zero")         \
  X(host, double, qpos_spring, (nq), "spring rest configuration")                                  \
  X(view_int, int, dof_jntid, (nv), "joint of the dof")                                            \
  X(host, int, dof_bodyid, (nv), "body of the dof")                                                \
  X(view_int, int, dof_parentid, (nv), "previous dof on the path to the root, -1")                 \
  X(host, double, dof_damping, (nv), "viscous damping")                                            \
  X(host, double, dof_armature, (nv), "armature inertia")                                          \
  X(view_real, double, dof_frictionloss, (nv), "dry friction (a friction row)")                    \
  X(view_real, double, dof_solref, (nv, 2), "friction rows")                                       \
  X(view_real, double, dof_solimp, (nv, 5), "friction rows")                                       \
  X(view_real, double, body_invweight0, (nbody, 2),                                                \
    "mean diagonal of J H⁻¹ Jᵀ at qpos0, translation and rotation: the scale of R")                \
  X(view_real, double, dof_invweight0, (nv), "mean diagonal of J H⁻¹ Jᵀ at qpos0")                 \
  X(view_int, int, tree_dof, (njac()), "ancestor dofs of each body, increasing, body after body")  \
  X(host, std::string, actuator_name, (nu), "name")                                                \
  X(host, ActuatorType, actuator_type, (nu), "ActuatorType: the shortcut it was written as")       \
  X(view_int, int, actuator_trntype, (nu), "TransmissionType: joint 0, tendon 3")                  \
  X(view_int, int, actuator_trnid, (nu), "driven joint or tendon")                                 \
  X(host, double, actuator_gear, (nu), "transmission ratio")                                       \
  X(host, double, actuator_gainprm, (nu, 3), "gain0 gain1 gain2; a fixed gain's is gain0")         \
  X(host, double, actuator_biasprm, (nu, 3), "bias0 bias1 bias2")                                  \
  X(view_int, ActuatorDyn, actuator_dyntype, (nu), "ActuatorDyn (MuJoCo's mjtDyn)")                \
  X(view_int, ActuatorGain, actuator_gaintype, (nu), "ActuatorGain (mjtGain)")                     \
  X(view_int, ActuatorBias, actuator_biastype, (nu), "ActuatorBias (mjtBias)")                     \
  X(view_real, double, actuator_dynprm, (nu, 3),                                                   \
    "activation time constants; filter: τ, 0, 0; an instance's are parameters")                    \
  X(view_int, int, actuator_actadr, (nu), "index of its activation in act, -1 without dynamics")   \
  X(view_int, int, actuator_actlimited, (nu), "1: act clamped to actrange after each step")        \
  X(view_int, int, actuator_actearly, (nu),                                                        \
    "1: force from the activation after the step (MuJoCo 3)")                                      \
  X(view_real, double, actuator_actrange, (nu, 2), "activation range")                             \
  X(host, double, actuator_lengthrange, (nu, 2), "muscles' length range, else 0 0")                \
  X(view_real, double, actuator_musclegain, (nu, 8),                                               \
    "muscle curves (kernels/actuator_dynamics.h): lengthrange0 L0 range0 lmin lmax vmax fvmax 0")  \
  X(view_real, double, actuator_musclebias, (nu, 4), "lengthrange0 L0 range0 lmax")                \
  X(view_int, int, actuator_ctrllimited, (nu), "1: ctrl clamped to ctrlrange")                     \
  X(view_real, double, actuator_ctrlrange, (nu, 2), "control range")                               \
  X(view_int, int, actuator_forcelimited, (nu), "1: force clamped to forcerange")                  \
  X(view_real, double, actuator_forcerange, (nu, 2), "force range")                                \
  X(host, std::string, tendon_name, (ntendon), "name")                                             \
  X(view_int, int, tendon_adr, (ntendon), "first path entry in wrap_*")                            \
  X(view_int, int, tendon_num, (ntendon), "path entries")                                          \
  X(view_int, int, wrap_type, (nwrap()),                                                           \
    "WrapType of each entry: joint 1, pulley 2, site 3, sphere 4, cylinder 5")                     \
  X(view_int, int, wrap_objid, (nwrap()), "joint, site or geom of each entry, -1 for a pulley")    \
  X(view_real, double, wrap_prm, (nwrap()),                                                        \
    "joint coefficient, pulley divisor, or a wrap geom's side site (-1 without), as MuJoCo's")     \
  X(view_int, int, wrap_sideid, (nwrap()), "a wrap geom's side site, -1 without or for others")    \
  X(host, double, tendon_stiffness, (ntendon), "spring stiffness")                                 \
  X(host, double, tendon_damping, (ntendon), "viscous damping")                                    \
  X(view_real, double, tendon_lengthspring, (ntendon, 2),                                          \
    "the spring's rest lengths, lower and upper: no spring force between them")                    \
  X(view_real, double, tendon_length0, (ntendon), "length at qpos0")                               \
  X(view_real, double, tendon_invweight0, (ntendon), "J H⁻¹ Jᵀ at qpos0")                          \
  X(host, double, tendon_frictionloss, (ntendon), "dry friction (a friction row)")                 \
  X(view_int, int, tendon_limited, (ntendon), "1: the range limits the length")                    \
  X(view_real, double, tendon_range, (ntendon, 2), "lower and upper length")                       \
  X(view_real, double, tendon_margin, (ntendon), "limit rows exist below this distance")           \
  X(view_real, double, tendon_solref_lim, (ntendon, 2), "limit rows")                              \
  X(view_real, double, tendon_solimp_lim, (ntendon, 5), "limit rows")                              \
  X(view_real, double, tendon_solref_fri, (ntendon, 2), "friction row")                            \
  X(view_real, double, tendon_solimp_fri, (ntendon, 5), "friction row")                            \
  X(view_int, int, tendon_actfrclimited, (ntendon),                                                \
    "1: its actuators scaled together to keep their total force in tendon_actfrcrange")            \
  X(view_real, double, tendon_actfrcrange, (ntendon, 2), "range of its actuators' total force")    \
  X(host, std::string, eq_name, (neq), "name")                                                     \
  X(view_int, EqualityType, eq_type, (neq), "EqualityType: connect 0, weld 1, joint 2, tendon 3")  \
  X(view_int, int, eq_obj1id, (neq), "body or joint")                                              \
  X(view_int, int, eq_obj2id, (neq), "body (0: world) or joint (-1: none)")                        \
  X(host, int, eq_active, (neq), "1: active at the start")                                         \
  X(host, int, eq_hard, (neq), "1: exact (a hard row), 0: soft")                                   \
  X(view_real, double, eq_data, (neq, 11),                                                         \
    "MuJoCo's eq_data: connect anchor1, anchor2; weld anchor2, anchor1, relquat, torquescale; "    \
    "joint polycoef")                                                                              \
  X(view_real, double, eq_solref, (neq, 2), "soft rows")                                           \
  X(view_real, double, eq_solimp, (neq, 5), "soft rows")                                           \
  X(view_int, int, drive_jnt, (ndrive), "driven joint")                                            \
  X(host, double, drive_prm, (ndrive, 5), "q0 v0 amplitude omega phase")                           \
  X(view_real, double, drive_solref, (ndrive, 2), "row reference")                                 \
  X(host, std::string, nhc_name, (nnhc), "name")                                                   \
  X(view_int, NonholonomicType, nhc_type, (nnhc),                                                  \
    "NonholonomicType: knife edge 0, rolling sphere 1")                                            \
  X(view_int, int, nhc_body, (nnhc), "constrained body")                                           \
  X(view_real, double, nhc_data, (nnhc, 6),                                                        \
    "knife edge: point, direction; rolling sphere: radius, height, 0 0 0 0")                       \
  X(view_real, double, nhc_solref, (nnhc, 2), "row reference")                                     \
  X(host, std::string, geom_name, (ngeom), "name")                                                 \
  X(view_int, GeomType, geom_type, (ngeom), "GeomType (MuJoCo's mjtGeom)")                         \
  X(view_int, int, geom_bodyid, (ngeom), "body of the geom")                                       \
  X(view_real, double, geom_pos, (ngeom, 3), "position in the body frame")                         \
  X(view_real, double, geom_quat, (ngeom, 4), "orientation in the body frame, unit, w x y z")      \
  X(view_real, double, geom_size, (ngeom, 3), "size parameters, MuJoCo's")                         \
  X(view_real, double, geom_rbound, (ngeom), "bounding sphere radius, 0 for planes")               \
  X(view_int, int, geom_fluidshape, (ngeom), "1: the fluid forces' ellipsoid model (fluidshape)")  \
  X(view_real, double, geom_fluid, (ngeom, 12),                                                    \
    "MuJoCo's geom_fluid: interaction, blunt drag, slender drag, angular drag, Kutta lift, "       \
    "Magnus lift coefficients, added mass (3), added inertia (3) per unit density")                \
  X(host, int, geom_contype, (ngeom), "contact type bits")                                         \
  X(view_int, int, geom_visible, (ngeom), "1: rangefinder rays see it")                            \
  X(host, int, geom_conaffinity, (ngeom), "contact affinity bits")                                 \
  X(host, int, geom_condim, (ngeom), "contact dimension: 1, 3, 4 or 6")                            \
  X(host, int, geom_priority, (ngeom), "the higher priority's friction and solver parameters win") \
  X(host, double, geom_friction, (ngeom, 3), "sliding, torsional, rolling")                        \
  X(host, double, geom_margin, (ngeom), "contacts found below this distance")                      \
  X(host, double, geom_gap, (ngeom), "rows only below margin − gap")                               \
  X(host, double, geom_solmix, (ngeom), "weight of its solref and solimp in a pair")               \
  X(host, double, geom_solref, (ngeom, 2), "contact rows")                                         \
  X(host, double, geom_solimp, (ngeom, 5), "contact rows")                                         \
  X(view_int, int, geom_dataid, (ngeom),                                                           \
    "mesh of a mesh geom, height field of a height-field geom, -1 for the others")                 \
  X(host, std::string, mesh_name, (nmesh), "name")                                                 \
  X(view_int, int, mesh_vertadr, (nmesh), "first vertex in mesh_vert")                             \
  X(view_int, int, mesh_vertnum, (nmesh), "hull vertices, 0 where there is no hull")               \
  X(view_real, double, mesh_vert, (nmeshvert(), 3), "hull vertices, the mesh frame")               \
  X(view_int, int, mesh_faceadr, (nmesh), "first triangle in mesh_face")                           \
  X(view_int, int, mesh_facenum, (nmesh), "hull triangles")                                        \
  X(view_int, int, mesh_face, (nmeshface(), 3), "vertex indices within the mesh, outward")         \
  X(view_int, int, mesh_polyadr, (nmesh), "first polygon in the mesh_poly arrays")                 \
  X(view_int, int, mesh_polynum, (nmesh),                                                          \
    "polygons: the hull's triangles of one plane merged (MuJoCo's rule)")                          \
  X(view_int, int, mesh_polyvertadr, (nmeshpoly()), "first vertex in mesh_polyvert")               \
  X(view_int, int, mesh_polyvertnum, (nmeshpoly()), "vertices")                                    \
  X(view_int, int, mesh_polyvert, (nmeshpolyvert()),                                               \
    "vertex within the mesh; counter-clockwise seen from outside")                                 \
  X(view_real, double, mesh_polynormal, (nmeshpoly(), 3), "outward unit normal, the mesh frame")   \
  X(view_int, int, mesh_polymapadr, (nmeshvert()),                                                 \
    "first of the vertex's polygons in mesh_polymap")                                              \
  X(view_int, int, mesh_polymapnum, (nmeshvert()), "polygons the vertex is a corner of")           \
  X(view_int, int, mesh_polymap, (nmeshpolymap()), "polygon within the mesh")                      \
  X(host, std::string, hfield_name, (nhfield), "name")                                             \
  X(view_real, double, hfield_size, (nhfield, 4),                                                  \
    "x and y half-sizes, elevation scale, base depth (m)")                                         \
  X(view_int, int, hfield_nrow, (nhfield), "grid rows, along y")                                   \
  X(view_int, int, hfield_ncol, (nhfield), "grid columns, along x")                                \
  X(view_int, int, hfield_adr, (nhfield), "first elevation in hfield_data")                        \
  X(view_real, double, hfield_data, (nhfielddata()),                                               \
    "elevations in [0, 1], row by row from y = -size[1]")                                          \
  X(host, std::string, pair_name, (npair), "name")                                                 \
  X(host, int, pair_geom1, (npair), "first geom")                                                  \
  X(host, int, pair_geom2, (npair), "second geom")                                                 \
  X(host, int, pair_dim, (npair), "contact dimension")                                             \
  X(host, double, pair_friction, (npair, 5), "tangent 1, 2, torsion, roll 1, 2")                   \
  X(host, double, pair_solref, (npair, 2), "contact rows")                                         \
  X(host, double, pair_solimp, (npair, 5), "contact rows")                                         \
  X(host, double, pair_margin, (npair), "contacts found below this distance")                      \
  X(host, double, pair_gap, (npair), "rows only below margin − gap")                               \
  X(host, int, exclude_body1, (nexclude), "first body")                                            \
  X(host, int, exclude_body2, (nexclude), "second body")                                           \
  X(host, std::string, site_name, (nsite), "name")                                                 \
  X(view_int, int, site_bodyid, (nsite), "body of the site")                                       \
  X(view_real, double, site_pos, (nsite, 3), "position in the body frame")                         \
  X(view_real, double, site_quat, (nsite, 4), "orientation in the body frame, unit, w x y z")      \
  X(view_int, int, site_type, (nsite), "GeomType of the site's zone")                              \
  X(view_real, double, site_size, (nsite, 3), "the zone's size, as a geom's")                      \
  X(host, std::string, fused_name, (nfused), "name, \"\" for an unnamed body")                     \
  X(host, int, fused_bodyid, (nfused), "the body it was merged into, 0 the world")                 \
  X(host, double, fused_pos, (nfused, 3),                                                          \
    "origin of the merged body's frame in the frame of fused_bodyid")                              \
  X(host, double, fused_quat, (nfused, 4), "orientation of that frame there, unit, w x y z")       \
  X(host, double, fused_mass, (nfused),                                                            \
    "its mass (kg), joined to fused_bodyid's unless that is the world; settotalmass scales it as " \
    "the bodies'")                                                                                 \
  X(host, double, fused_ipos, (nfused, 3), "its centre of mass in the frame of fused_bodyid")      \
  X(host, std::string, sensor_name, (nsensor), "name")                                             \
  X(view_int, SensorType, sensor_type, (nsensor), "SensorType (MuJoCo's mjtSensor)")               \
  X(view_int, SensorDataType, sensor_datatype, (nsensor),                                          \
    "SensorDataType: real 0, positive 1, axis 2, quaternion 3")                                    \
  X(view_int, ObjType, sensor_objtype, (nsensor), "ObjType of the sensed object")                  \
  X(view_int, int, sensor_objid, (nsensor), "-1 for none (clock, user)")                           \
  X(view_int, ObjType, sensor_reftype, (nsensor), "ObjType of the reference frame")                \
  X(view_int, int, sensor_refid, (nsensor), "-1: the world frame")                                 \
  X(view_int, int, sensor_dim, (nsensor), "values it writes")                                      \
  X(view_int, int, sensor_adr, (nsensor), "first value in sensordata")                             \
  X(view_real, double, sensor_cutoff, (nsensor), "values clamped to ±cutoff, 0: none")             \
  X(host, double, sensor_noise, (nsensor), "noise standard deviation, never added")                \
  X(host, std::string, key_name, (nkey), "name, \"\" for an unnamed key")                          \
  X(host, double, key_time, (nkey), "time")                                                        \
  X(host, double, key_qpos, (nkey, nq), "configuration, quaternions normalised")                   \
  X(host, double, key_qvel, (nkey, nv), "velocities")                                              \
  X(host, double, key_ctrl, (nkey, nu), "controls")                                                \
  X(host, double, key_act, (nkey, na), "activations")                                              \
  X(host, double, key_mpos, (nkey, nmocap, 3), "mocap positions")                                  \
  X(host, double, key_mquat, (nkey, nmocap, 4), "mocap orientations, unit, w x y z")

// ZW_ARRAY_INT(use, code...): the code where the kernels read the array as ints, else nothing;
// ZW_ARRAY_REAL likewise for reals
#define ZW_ARRAY_INT(use, ...) ZW_ARRAY_INT_##use(__VA_ARGS__)
#define ZW_ARRAY_INT_view_int(...) __VA_ARGS__
#define ZW_ARRAY_INT_view_real(...)
#define ZW_ARRAY_INT_host(...)
#define ZW_ARRAY_REAL(use, ...) ZW_ARRAY_REAL_##use(__VA_ARGS__)
#define ZW_ARRAY_REAL_view_int(...)
#define ZW_ARRAY_REAL_view_real(...) __VA_ARGS__
#define ZW_ARRAY_REAL_host(...)
