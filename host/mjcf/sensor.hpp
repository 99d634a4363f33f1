// The MJCF loader's <sensor> section (host/mjcf/sensor.cc).
#pragma once

#include <pugixml.hpp>
#include <span>

#include "host/mjcf/body.hpp"
#include "zwang/builder.hpp"
#include "zwang/model.hpp"

namespace zwang::mjcf {

// The sensors of the <sensor> elements `nodes` (every section's children, in document order)
// and the magnetic field of the <option> elements `options`.  A sensor zwang does not compute
// (cameras, a body's principal axes) is reported as a warning
// naming its line and kept as a user sensor of MuJoCo's size, so that the others keep MuJoCo's
// addresses in sensordata.
void add_sensors(Context& ctx, std::span<const pugi::xml_node> options,
                 std::span<const pugi::xml_node> nodes, ModelBuilder& builder);

}  // namespace zwang::mjcf
