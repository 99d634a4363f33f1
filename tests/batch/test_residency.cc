// The bookkeeping of device-resident state (host/batch/residency.hpp) with a second host batch
// standing in for the device copy: which fields a host read downloads, which a host write
// marks for upload, what a device call uploads and leaves stale.  No GPU: these run in every
// build.  The same logic against a real device is in test_cuda_resident.cc.
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

#include "host/batch/residency.hpp"
#include "test_util.h"
#include "zwang/simulator.hpp"

namespace zwang::test {
namespace {

// the device copy as a second batch; copies whole fields between the two, like the CUDA
// backend's, and records them
class FakeDevice final : public FieldCopier {
 public:
  FakeDevice(Batch<double>& host, Batch<double>& device) : host_(host), device_(device) {}

  void to_host(FieldId f) override {
    copy(device_, host_, f);
    down.push_back(f);
  }
  void to_device(FieldId f) override {
    copy(host_, device_, f);
    up.push_back(f);
  }
  void wait_to_device() override { ++waits; }

  std::vector<FieldId> up, down;
  int waits = 0;

 private:
  static void copy(Batch<double>& from, Batch<double>& to, FieldId f) {
    const FieldRows r = field_rows(f, from.layout(), from.sizes());
    const auto a = from.unsynchronized(), b = to.unsynchronized();
    const std::size_t ld = static_cast<std::size_t>(from.padded_size());
    const std::size_t offset = r.row * ld, count = r.rows * ld;
    switch (r.arena) {
      case ArenaId::kData:
        std::memcpy(b.data + offset, a.data + offset, count * sizeof(double));
        break;
      case ArenaId::kParam:
        std::memcpy(b.param + offset, a.param + offset, count * sizeof(double));
        break;
      case ArenaId::kTime:
        std::memcpy(b.time, a.time, count * sizeof(double));
        break;
      case ArenaId::kStatus:
        std::memcpy(b.status, a.status, count * sizeof(int));
        break;
    }
  }
  Batch<double>& host_;
  Batch<double>& device_;
};

// a host batch mirrored by a fake device, as the CUDA backend sets it up
struct Mirrored {
  explicit Mirrored(const Model& model, std::int64_t n = 40)
      : host(model, n),
        device(model, n),
        fake(host, device),
        residency(host.layout(), host.sizes(), host.padded_size(), sizeof(double), fake) {
    host.set_sync(&residency);
  }
  ~Mirrored() { host.set_sync(nullptr); }

  // a step on the "device": it writes state, outputs, time and status there
  void device_step() {
    residency.push();
    for (std::int64_t i = 0; i < device.size(); ++i) {
      device.qpos()(i, 0) += 1;
      device.qvel()(i, 0) = 2.0 + i;
      device.xpos()(i, 3) = 3.0;
      device.time()[i] += 0.01;
    }
    device.status()[5] = 1;
    residency.device_wrote(DeviceCall::kStep);
  }

  Batch<double> host, device;
  FakeDevice fake;
  Residency residency;
};

std::size_t field_bytes(const Batch<double>& b, FieldId f) {
  return field_rows(f, b.layout(), b.sizes()).rows * b.padded_size() * sizeof(double);
}

TEST(Fields, NamesIdsAndRowsMatchTheLayout) {
  const Model model = examples::floating_base();
  Batch<double> b(model, 40);
  EXPECT_STREQ(field_name(FieldId::qpos), "qpos");
  EXPECT_STREQ(field_name(FieldId::gravity), "gravity");
  EXPECT_STREQ(field_name(FieldId::status), "status");
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    EXPECT_EQ(field_id(field_name(f)), f);
    const FieldRows r = field_rows(f, b.layout(), b.sizes());
    if (r.arena == ArenaId::kData || r.arena == ArenaId::kParam) {
      double* arena = r.arena == ArenaId::kData ? b.data_arena() : b.param_arena();
      EXPECT_EQ(b.field(f).data(), arena + r.row * b.padded_size()) << field_name(f);
      EXPECT_EQ(b.field(f).width(), r.rows) << field_name(f);
    } else {
      EXPECT_THROW(b.field(f), std::invalid_argument);
    }
  }
  EXPECT_EQ(b.field(FieldId::qvel).data(), b.qvel().data());
  EXPECT_EQ(field_rows(FieldId::qvel, b.layout(), b.sizes()).rows, model.nv);
  EXPECT_EQ(field_rows(FieldId::xpos, b.layout(), b.sizes()).rows, 3 * model.nbody);
  EXPECT_THROW(field_id("no_such_field"), std::invalid_argument);
}

TEST(Fields, CallsWriteTheirFields) {
  using enum FieldId;
  for (FieldId f : {qacc, qM, xpos, cfrc_ext, cvel, efc_force, status}) {
    EXPECT_TRUE(writes(DeviceCall::kForward, f)) << field_name(f);
    EXPECT_TRUE(writes(DeviceCall::kStep, f)) << field_name(f);
  }
  // the state: act too, which a step integrates
  for (FieldId f : {qpos, qvel, act, time}) {
    EXPECT_FALSE(writes(DeviceCall::kForward, f)) << field_name(f);
    EXPECT_TRUE(writes(DeviceCall::kStep, f)) << field_name(f);
  }
  for (FieldId f : {ctrl, xfrc_applied, body_mass, gravity, drive_prm}) {
    EXPECT_FALSE(writes(DeviceCall::kForward, f)) << field_name(f);
    EXPECT_FALSE(writes(DeviceCall::kStep, f)) << field_name(f);
  }
  for (FieldId f : {qpos, ctrl, xfrc_applied, qacc, cvel, time, status}) {
    EXPECT_TRUE(writes(DeviceCall::kReset, f)) << field_name(f);
  }
  EXPECT_FALSE(writes(DeviceCall::kReset, body_mass));
  EXPECT_FALSE(writes(DeviceCall::kReset, gravity));
}

TEST(Residency, AStepMovesNothingAndAReadDownloadsThatFieldAlone) {
  Mirrored m(examples::cart_pole());
  m.device_step();
  EXPECT_TRUE(m.fake.up.empty());  // no host edit: nothing uploaded
  EXPECT_TRUE(m.fake.down.empty());
  EXPECT_FALSE(m.residency.host_current(FieldId::qpos));
  EXPECT_TRUE(m.residency.host_current(FieldId::ctrl));
  EXPECT_TRUE(m.residency.host_current(FieldId::body_mass));

  const Batch<double>& host = m.host;
  EXPECT_EQ(host.qpos()(7, 0), m.device.qpos()(7, 0));
  ASSERT_EQ(m.fake.down, std::vector<FieldId>{FieldId::qpos});
  EXPECT_EQ(m.residency.bytes_down(FieldId::qpos), field_bytes(host, FieldId::qpos));
  EXPECT_FALSE(m.residency.host_dirty(FieldId::qpos));  // a const read marks nothing
  // read again: current, no copy
  EXPECT_EQ(host.qpos()(8, 0), m.device.qpos()(8, 0));
  EXPECT_EQ(m.fake.down.size(), 1u);
  // qvel not read yet: the host still holds the old values
  EXPECT_EQ(m.host.unsynchronized().data[m.host.layout().qvel * m.host.padded_size() + 7], 0.0);
  EXPECT_EQ(host.qvel()(7, 0), 9.0);
  EXPECT_EQ(host.time()[3], m.device.time()[3]);
  EXPECT_EQ(host.status()[5], 1);
  EXPECT_EQ(m.fake.down,
            (std::vector<FieldId>{FieldId::qpos, FieldId::qvel, FieldId::time, FieldId::status}));
  // the next device call restarts the counts and uploads nothing: no field was written
  m.residency.push();
  EXPECT_TRUE(m.fake.up.empty());
  EXPECT_EQ(m.residency.bytes_down(FieldId::qpos), 0u);
}

// a copy of a mirrored batch holds the device's values and no hook: later reads and writes of
// the copy move nothing and leave the original's flags alone
TEST(Residency, ACopyIsCurrentAndIndependent) {
  Mirrored m(examples::cart_pole());
  m.device_step();
  Batch<double> copy(std::as_const(m.host));
  EXPECT_EQ(copy.sync(), nullptr);
  EXPECT_EQ(copy.qpos()(7, 0), m.device.qpos()(7, 0));
  EXPECT_EQ(copy.xpos()(2, 3), 3.0);
  EXPECT_EQ(copy.time()[3], m.device.time()[3]);
  EXPECT_EQ(copy.status()[5], 1);
  const std::size_t downloads = m.fake.down.size();
  copy.qvel()(0, 0) = -5;
  EXPECT_EQ(m.fake.down.size(), downloads);
  EXPECT_FALSE(m.residency.host_dirty(FieldId::qvel));
  m.residency.push();
  EXPECT_TRUE(m.fake.up.empty());
  EXPECT_EQ(m.device.qvel()(0, 0), 2.0);
}

TEST(Residency, AHostEditUploadsThatFieldAlone) {
  Mirrored m(examples::cart_pole());
  m.device_step();
  m.host.ctrl();  // current already: no download
  EXPECT_TRUE(m.fake.down.empty());
  m.host.body_mass()(4, 1) = 7.5;
  EXPECT_TRUE(m.residency.host_dirty(FieldId::body_mass));
  EXPECT_TRUE(m.residency.host_dirty(FieldId::ctrl));
  EXPECT_FALSE(m.residency.host_dirty(FieldId::qpos));
  m.residency.push();
  EXPECT_EQ(m.fake.up, (std::vector<FieldId>{FieldId::ctrl, FieldId::body_mass}));
  EXPECT_EQ(m.residency.bytes_up(FieldId::body_mass), field_bytes(m.host, FieldId::body_mass));
  EXPECT_EQ(m.residency.bytes_up(FieldId::qpos), 0u);
  EXPECT_EQ(m.device.body_mass()(4, 1), 7.5);
  EXPECT_FALSE(m.residency.host_dirty(FieldId::body_mass));
  // once pushed, a second call uploads nothing
  m.fake.up.clear();
  m.residency.push();
  EXPECT_TRUE(m.fake.up.empty());
}

// a write to a field the device changed downloads it first, so the upload carries the
// device's values of every instance the host did not touch
TEST(Residency, AWriteToAStaleFieldDownloadsItFirst) {
  Mirrored m(examples::cart_pole());
  m.device_step();
  m.host.qvel()(2, 0) = -1;
  EXPECT_EQ(m.fake.down, std::vector<FieldId>{FieldId::qvel});
  m.residency.push();
  EXPECT_EQ(m.device.qvel()(2, 0), -1);
  EXPECT_EQ(m.device.qvel()(3, 0), 5.0);  // the device's step result survived
}

// host writes wait for the uploads of the last push to have read the host copy, once
TEST(Residency, WritesAfterAPushWaitForItsUploads) {
  Mirrored m(examples::cart_pole());
  m.host.ctrl();
  m.residency.push();
  EXPECT_EQ(m.fake.waits, 0);
  m.host.qpos();
  EXPECT_EQ(m.fake.waits, 1);
  m.host.qvel();
  EXPECT_EQ(m.fake.waits, 1);
  const Batch<double>& host = m.host;
  m.residency.push();  // qpos, qvel
  host.qpos();         // reading does not wait
  EXPECT_EQ(m.fake.waits, 1);
}

TEST(Residency, DeviceWritesDropHostEditsAndInvalidate) {
  Mirrored m(examples::cart_pole());
  m.host.ctrl()(1, 0) = 3;
  m.device.ctrl()(1, 0) = 4;
  m.residency.device_wrote(FieldId::ctrl);  // e.g. a policy wrote it on the device
  EXPECT_FALSE(m.residency.host_dirty(FieldId::ctrl));
  m.residency.push();
  EXPECT_TRUE(m.fake.up.empty());
  EXPECT_EQ(std::as_const(m.host).ctrl()(1, 0), 4);
  m.residency.pull_all();  // the rest is current: nothing more
  EXPECT_EQ(m.fake.down, std::vector<FieldId>{FieldId::ctrl});
}

TEST(Residency, WholeArenasAndResetsGoThroughEveryField) {
  Mirrored m(examples::cart_pole());
  m.device_step();
  const Batch<double>& host = m.host;
  host.data_arena();  // read: the stale fields come down, nothing is marked
  for (int k = 0; k < kFieldCount; ++k) {
    const FieldId f = static_cast<FieldId>(k);
    if (field_rows(f, host.layout(), host.sizes()).arena != ArenaId::kData) continue;
    EXPECT_TRUE(m.residency.host_current(f)) << field_name(f);
    EXPECT_FALSE(m.residency.host_dirty(f)) << field_name(f);
  }
  EXPECT_FALSE(m.residency.host_current(FieldId::time));
  m.host.reset_state(3, examples::cart_pole());
  EXPECT_TRUE(m.residency.host_dirty(FieldId::qpos));
  EXPECT_TRUE(m.residency.host_dirty(FieldId::cvel));
  EXPECT_TRUE(m.residency.host_dirty(FieldId::time));
  EXPECT_FALSE(m.residency.host_dirty(FieldId::gravity));
  m.residency.push();
  EXPECT_EQ(m.device.time()[3], 0.0);
  EXPECT_EQ(m.device.time()[4], 0.01);
  m.host.param_arena();
  EXPECT_TRUE(m.residency.host_dirty(FieldId::gravity));
}

// a field without rows (no actuators: ctrl) is never copied
TEST(Residency, EmptyFieldsAreNotCopied) {
  const Model model = examples::pendulum();
  ASSERT_EQ(model.nu, 0);
  Mirrored m(model);
  m.residency.device_wrote(FieldId::ctrl);
  std::as_const(m.host).ctrl();
  m.host.ctrl();
  m.residency.push();
  EXPECT_TRUE(m.fake.down.empty());
  EXPECT_TRUE(m.fake.up.empty());
}

// the CPU backend installs no hook and has no device copy
TEST(Residency, TheCpuBackendHasNoDeviceCopy) {
  const Model model = examples::pendulum();
  Simulator<double> sim(model, 4);
  EXPECT_EQ(sim.batch().sync(), nullptr);
  EXPECT_TRUE(sim.device_fields().empty());
  EXPECT_EQ(sim.cuda_stream(), nullptr);
  EXPECT_THROW(sim.device_field(FieldId::qpos), std::logic_error);
  EXPECT_NO_THROW(sim.synchronize());
  EXPECT_NO_THROW(sim.upload_host_edits());
  EXPECT_NO_THROW(sim.invalidate_host());
  // references taken before a step stay valid on the CPU
  const FieldRef<double> qpos = sim.batch().qpos();
  const FieldRef<const double> read = std::as_const(sim).batch().qpos();
  sim.batch().qvel()(1, 0) = 2;
  sim.step(3);
  EXPECT_EQ(qpos(1, 0), read(1, 0));
  EXPECT_NE(read(1, 0), model.qpos0[0]);
  const std::int64_t bad[] = {4};
  EXPECT_THROW(sim.reset(bad), std::out_of_range);
}

}  // namespace
}  // namespace zwang::test
