// `zwang info`: what a model holds, element by element; `zwang export`: the model as MJCF.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include "host/cli/cli_common.hpp"
#include "host/cli/commands.hpp"
#include "host/model/flag_names.hpp"

namespace zwang::cli {
namespace {

std::string range_text(bool limited, const double* r) {
  return limited ? fmt::format("[{:g}, {:g}]", r[0], r[1]) : "-";
}

// "site tip", "xbody arm", "-" for none
std::string sensor_object_name(const Model& m, ObjType type, int id) {
  if (id < 0) return "-";
  const std::vector<std::string>* names = m.names(type);
  if (names == nullptr) return "-";
  const std::string& name = (*names)[id];
  return fmt::format("{} {}", to_string(type), name.empty() ? fmt::format("#{}", id) : name);
}

}  // namespace

int run_info(const std::string& spec, const LoadOptions& load) {
  const OpenedModel opened = open_model(spec, load);
  const Model& m = opened.model;
  std::printf("model       %s\n", opened.source.c_str());
  std::printf("sizes       nbody %d (world included), njnt %d, nq %d, nv %d, nu %d, na %d\n",
              m.nbody, m.njnt, m.nq, m.nv, m.nu, m.na);
  std::printf("total mass  %.6g kg\n", m.total_mass());
  std::printf("options     timestep %g s, integrator %s, gravity %g %g %g\n", m.timestep,
              std::string(to_string(m.integrator)).c_str(), m.gravity[0], m.gravity[1],
              m.gravity[2]);
  if (m.density > 0 || m.viscosity > 0) {
    int ellipsoids = 0;
    for (int g : m.geom_fluidshape) ellipsoids += g;
    std::printf(
        "fluid       density %g kg/m3, viscosity %g Pa s, wind %g %g %g m/s; %d geoms of "
        "the ellipsoid model\n",
        m.density, m.viscosity, m.wind[0], m.wind[1], m.wind[2], ellipsoids);
  }
  std::vector<std::string> off;
  for (const auto& [bit, name] : kDisableFlagNames) {
    if (m.disableflags & bit) off.emplace_back(name);
  }
  std::printf("disabled    %s\n",
              off.empty() ? "nothing" : fmt::format("{}", fmt::join(off, ", ")).c_str());
  std::vector<std::string> keys;
  for (int k = 0; k < m.nkey; ++k) {
    keys.push_back(m.key_name[k].empty() ? fmt::format("{} (unnamed)", k) : m.key_name[k]);
  }
  std::printf("keyframes   %s\n",
              keys.empty() ? "none" : fmt::format("{}", fmt::join(keys, ", ")).c_str());
  const int nconmax = m.sizes().nconmax;
  std::printf(
      "contacts    %d geoms, %s\n", m.ngeom,
      nconmax == 0
          ? "none possible (no geom pair passes the filters, or disabled)"
          : fmt::format("at most {} per instance, {} cone, impratio {:g}, margins {}, MuJoCo "
                        "{}'s pairs",
                        nconmax, m.cone == Cone::kElliptic ? "elliptic" : "pyramidal", m.impratio,
                        m.contact_margin == ContactMargin::kSum ? "summed" : "the larger",
                        m.rules == Rules::kMujoco2 ? "2.2.2" : "4.0")
                .c_str());
  std::printf("\nbodies\n  %-4s %-24s %-24s %10s  %s\n", "id", "name", "parent", "mass", "joints");
  for (int b = 1; b < m.nbody; ++b) {
    std::vector<std::string> joints(m.jnt_name.begin() + m.body_jntadr[b],
                                    m.jnt_name.begin() + m.body_jntadr[b] + m.body_jntnum[b]);
    std::printf("  %-4d %-24s %-24s %10.4g  %s\n", b, m.body_name[b].c_str(),
                m.body_name[m.body_parentid[b]].c_str(), m.body_mass[b],
                m.body_mocapid[b] >= 0 ? "(mocap)"
                : joints.empty()       ? "(welded)"
                                       : fmt::format("{}", fmt::join(joints, " ")).c_str());
  }
  if (m.nfused > 0) {
    std::printf(
        "\nmerged bodies (welded bodies merged at load; their frames: fused_xpos ...)\n"
        "  %-4s %-24s %-24s %10s\n",
        "id", "name", "into", "mass");
    for (int f = 0; f < m.nfused; ++f) {
      std::printf("  %-4d %-24s %-24s %10.4g\n", f,
                  m.fused_name[f].empty() ? "-" : m.fused_name[f].c_str(),
                  m.body_name[m.fused_bodyid[f]].c_str(), m.fused_mass[f]);
    }
  }
  std::printf("\njoints\n  %-4s %-24s %-6s %-24s %5s %5s  %s\n", "id", "name", "type", "body",
              "qpos", "dof", "range");
  for (int j = 0; j < m.njnt; ++j) {
    std::printf("  %-4d %-24s %-6s %-24s %5d %5d  %s\n", j, m.jnt_name[j].c_str(),
                std::string(to_string(m.jnt_type[j])).c_str(), m.body_name[m.jnt_bodyid[j]].c_str(),
                m.jnt_qposadr[j], m.jnt_dofadr[j],
                range_text(m.jnt_limited[j], &m.jnt_range[2 * j]).c_str());
  }
  std::printf("\ntendons\n");
  if (m.ntendon == 0) std::printf("  none\n");
  for (int t = 0; t < m.ntendon; ++t) {
    std::vector<std::string> path;
    for (int w = m.tendon_adr[t]; w < m.tendon_adr[t] + m.tendon_num[t]; ++w) {
      switch (static_cast<WrapType>(m.wrap_type[w])) {
        case WrapType::kJoint:
          path.push_back(fmt::format("{:g}·{}", m.wrap_prm[w], m.jnt_name[m.wrap_objid[w]]));
          break;
        case WrapType::kPulley:
          path.push_back(fmt::format("pulley/{:g}", m.wrap_prm[w]));
          break;
        case WrapType::kSite:
          path.push_back(m.site_name[m.wrap_objid[w]]);
          break;
        case WrapType::kSphere:
        case WrapType::kCylinder: {
          const int side = m.wrap_sideid[w];
          path.push_back(fmt::format("({}{}{})", m.geom_name[m.wrap_objid[w]],
                                     side >= 0 ? " side " : "",
                                     side >= 0 ? m.site_name[side] : std::string()));
          break;
        }
      }
    }
    const bool spatial = m.tendon_num[t] > 0 && m.wrap_type[m.tendon_adr[t]] != 1;
    std::printf("  %-4d %-24s %-7s k %-8g b %-8g range %-18s %s\n", t, m.tendon_name[t].c_str(),
                spatial ? "spatial" : "fixed", m.tendon_stiffness[t], m.tendon_damping[t],
                range_text(m.tendon_limited[t], &m.tendon_range[2 * t]).c_str(),
                fmt::format("{}", fmt::join(path, spatial ? " - " : " + ")).c_str());
  }
  std::printf("\nactuators\n");
  if (m.nu == 0) std::printf("  none\n");
  for (int a = 0; a < m.nu; ++a) {
    const bool tendon = m.actuator_trntype[a] == static_cast<int>(TransmissionType::kTendon);
    constexpr const char* kDynNames[] = {"none",   "integrator", "filter",
                                         "muscle", "user",       "filterexact"};
    const int dyn = static_cast<int>(m.actuator_dyntype[a]);
    const std::string act =
        m.actuator_actadr[a] < 0
            ? std::string()
            : fmt::format("  act {} ({}, actrange {})", m.actuator_actadr[a], kDynNames[dyn],
                          range_text(m.actuator_actlimited[a], &m.actuator_actrange[2 * a]));
    std::printf(
        "  %-4d %-24s %-9s %-6s %-20s gear %-8g ctrl %-18s force %s%s\n", a,
        m.actuator_name[a].c_str(), std::string(to_string(m.actuator_type[a])).c_str(),
        tendon ? "tendon" : "joint",
        (tendon ? m.tendon_name : m.jnt_name)[m.actuator_trnid[a]].c_str(), m.actuator_gear[a],
        range_text(m.actuator_ctrllimited[a], &m.actuator_ctrlrange[2 * a]).c_str(),
        range_text(m.actuator_forcelimited[a], &m.actuator_forcerange[2 * a]).c_str(), act.c_str());
  }
  std::printf("\nsensors (%d values)\n", m.nsensordata);
  if (m.nsensor == 0) std::printf("  none\n");
  for (int s = 0; s < m.nsensor; ++s) {
    std::string object = sensor_object_name(m, m.sensor_objtype[s], m.sensor_objid[s]);
    if (m.sensor_refid[s] >= 0) {
      object += " in " + sensor_object_name(m, m.sensor_reftype[s], m.sensor_refid[s]);
    }
    std::printf("  %-4d %-24s %-14s %-32s adr %-5d dim %d\n", s, m.sensor_name[s].c_str(),
                std::string(to_string(m.sensor_type[s])).c_str(), object.c_str(), m.sensor_adr[s],
                m.sensor_dim[s]);
  }
  std::printf("\nwarnings\n");
  if (opened.warnings.empty()) std::printf("  none\n");
  for (const std::string& w : opened.warnings) std::printf("  %s\n", w.c_str());
  return 0;
}

int run_export(const std::string& spec, const LoadOptions& load, const std::string& out,
               bool overwrite) {
  const OpenedModel opened = open_model(spec, load);
  for (const std::string& w : opened.warnings) std::fprintf(stderr, "zwang: %s\n", w.c_str());
  const std::string xml = opened.model.to_mjcf();
  if (out.empty() || out == "-") {
    std::fwrite(xml.data(), 1, xml.size(), stdout);
    return 0;
  }
  if (!overwrite && std::filesystem::exists(out)) {
    throw std::runtime_error(
        fmt::format("{} exists; give --overwrite to replace it, or another -o", out));
  }
  // written beside the target and renamed, so that a failed write leaves no half file
  const std::string part = out + ".part";
  {
    std::ofstream f(part, std::ios::binary | std::ios::trunc);
    f << xml;
    f.close();
    if (!f) {
      std::error_code ec;
      std::filesystem::remove(part, ec);
      throw std::runtime_error(fmt::format("cannot write {}", out));
    }
  }
  std::filesystem::rename(part, out);
  std::fprintf(stderr, "zwang: %s written (%s)\n", out.c_str(), opened.source.c_str());
  return 0;
}

}  // namespace zwang::cli
