// Sensors of a Model (MuJoCo's <sensor>): MuJoCo 2.2.2's rules for their objects, sizes and
// data types, shared by the builder, Model::validate and the loaders.
#pragma once

#include <string>

#include "zwang/model.hpp"

namespace zwang {

// what MuJoCo's compiler gives a sensor type: its values and their data type
struct SensorShape {
  int dim;
  SensorDataType datatype;
};
SensorShape sensor_shape(SensorType type);

// the object a sensor type attaches to (kUnknown for clock and user sensors, and for frame
// sensors, which name theirs)
ObjType sensor_object(SensorType type);

// true for frame sensors (framepos ... frameangacc), which take objtype and objname
bool is_frame_sensor(SensorType type);

// why zwang does not compute a sensor (frames of cameras,
// the orientation of a body's principal axes of inertia); empty when it does.  `reftype` is
// kUnknown for none.
std::string sensor_not_computed(SensorType type, ObjType objtype, ObjType reftype);

// bodies of the per-body sums some sensors need (subtree velocities and momenta, interaction
// forces): nbody when the model has such a sensor, else 0 (Sizes::nsensorbody)
int sensor_body_rows(const Model& m);

// ModelError "model: ..." when the sensor arrays do not fit the model
void validate_sensors(const Model& m);

}  // namespace zwang
