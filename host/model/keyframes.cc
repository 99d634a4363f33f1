// Keyframes (MuJoCo's <key>) completed with MuJoCo's defaults, and the mocap bodies' default
// poses (mj_resetData's).
#include "host/model/keyframes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "host/model/size.hpp"
#include "zwang/builder.hpp"

namespace zwang {
namespace {

std::string key_label(const std::string& name, std::size_t index) {
  return name.empty() ? fmt::format("keyframe {}", index) : fmt::format("keyframe '{}'", name);
}

// the key's values, or `fallback` when it gives none; ModelError naming the key otherwise
std::vector<double> entry(const std::vector<double>& given, const std::vector<double>& fallback,
                          const std::string& who, const char* field, const char* size) {
  if (given.empty()) return fallback;
  if (given.size() != fallback.size()) {
    throw ModelError(fmt::format("{}: {} has {} value{}, the model needs {} = {}", who, field,
                                 given.size(), given.size() == 1 ? "" : "s", size,
                                 fallback.size()));
  }
  return given;
}

// q (1 / |q|), or the identity for a quaternion of (nearly) zero length, as MuJoCo's
// mju_normalize4
void normalize_quat(double* q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (n < 1e-15) {
    q[0] = 1;
    q[1] = q[2] = q[3] = 0;
    return;
  }
  const double inv = 1 / n;
  for (int c = 0; c < 4; ++c) q[c] *= inv;
}

// the rows of a per-body array (width values each) of the mocap bodies, by mocap id
std::vector<double> mocap_rows(const Model& m, const std::vector<double>& body, int width) {
  std::vector<double> out(width * static_cast<std::size_t>(m.nmocap));
  for (int b = 0; b < m.nbody; ++b) {
    const int id = m.body_mocapid[b];
    if (id >= 0) std::copy_n(body.begin() + width * b, width, out.begin() + width * id);
  }
  return out;
}

}  // namespace

std::vector<double> mocap_pos0(const Model& m) {
  return mocap_rows(m, m.body_pos, 3);
}

std::vector<double> mocap_quat0(const Model& m) {
  return mocap_rows(m, m.body_quat, 4);
}

void ModelBuilder::add_keyframe(const KeyframeSpec& spec) {
  const std::string who = key_label(spec.name, keyframes_.size());
  if (keyframes_.size() >= static_cast<std::size_t>(kMaxKeyframes)) {
    throw ModelError(fmt::format("{}: a model may have at most {} keyframes", who, kMaxKeyframes));
  }
  if (!spec.name.empty()) {
    for (const KeyframeSpec& k : keyframes_) {
      if (k.name == spec.name) throw ModelError(who + ": a keyframe of that name exists already");
    }
  }
  if (!std::isfinite(spec.time)) throw ModelError(who + ": time is not finite");
  for (const std::vector<double>* v :
       {&spec.qpos, &spec.qvel, &spec.ctrl, &spec.act, &spec.mpos, &spec.mquat}) {
    for (double x : *v) {
      if (!std::isfinite(x)) throw ModelError(who + ": a value is not finite");
    }
  }
  keyframes_.push_back(spec);
}

// each key's entries, or qpos0, zeros and the mocap bodies' poses, with the quaternions of ball
// and free joints and of the mocap bodies normalised as MuJoCo's compiler does
void ModelBuilder::add_keyframes(Model& m) const {
  const std::int64_t per_key =
      1 + std::int64_t{m.nq} + m.nv + m.nu + m.na + 7 * std::int64_t{m.nmocap};
  const std::int64_t values = per_key * static_cast<std::int64_t>(keyframes_.size());
  if (values > kMaxKeyframeValues) {
    throw ModelError(fmt::format(
        "keyframes: {} keyframes of {} values each (time, qpos, qvel, ctrl, act, mocap poses) "
        "need {} values, more than the {} the keyframes of a model may hold",
        keyframes_.size(), per_key, values, kMaxKeyframeValues));
  }
  const std::vector<double> mpos = mocap_pos0(m), mquat = mocap_quat0(m);
  const auto append = [](std::vector<double>& to, const std::vector<double>& v) {
    to.insert(to.end(), v.begin(), v.end());
  };
  for (std::size_t i = 0; i < keyframes_.size(); ++i) {
    const KeyframeSpec& k = keyframes_[i];
    const std::string who = key_label(k.name, i);
    std::vector<double> qpos = entry(k.qpos, m.qpos0, who, "qpos", "nq");
    for (int j = 0; j < m.njnt; ++j) {
      if (m.jnt_type[j] == JointType::kBall) normalize_quat(qpos.data() + m.jnt_qposadr[j]);
      if (m.jnt_type[j] == JointType::kFree) normalize_quat(qpos.data() + m.jnt_qposadr[j] + 3);
    }
    std::vector<double> q = entry(k.mquat, mquat, who, "mquat", "4 · nmocap");
    for (std::size_t j = 0; j < q.size(); j += 4) normalize_quat(q.data() + j);
    m.key_name.push_back(k.name);
    m.key_time.push_back(k.time);
    append(m.key_qpos, qpos);
    append(m.key_qvel, entry(k.qvel, std::vector<double>(m.nv, 0.0), who, "qvel", "nv"));
    append(m.key_ctrl, entry(k.ctrl, std::vector<double>(m.nu, 0.0), who, "ctrl", "nu"));
    append(m.key_act, entry(k.act, std::vector<double>(m.na, 0.0), who, "act", "na"));
    append(m.key_mpos, entry(k.mpos, mpos, who, "mpos", "3 · nmocap"));
    append(m.key_mquat, q);
  }
  m.nkey = static_cast<int>(keyframes_.size());
}

void validate_keyframes(const Model& m) {
  for (const auto& [field, values] : {std::pair{"key_time", &m.key_time},
                                      {"key_qpos", &m.key_qpos},
                                      {"key_qvel", &m.key_qvel},
                                      {"key_ctrl", &m.key_ctrl},
                                      {"key_act", &m.key_act},
                                      {"key_mpos", &m.key_mpos},
                                      {"key_mquat", &m.key_mquat}}) {
    for (std::size_t i = 0; i < values->size(); ++i) {
      if (!std::isfinite((*values)[i])) {
        throw ModelError(fmt::format("model: {}[{}] is not finite", field, i));
      }
    }
  }
}

}  // namespace zwang
