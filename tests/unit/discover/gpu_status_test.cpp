#include <gtest/gtest.h>

#include "cktune/discover/gpu_status.hpp"

namespace cktune::discover {
namespace {

TEST(BusyState, ProcessesOrUtilisationMeanBusy) {
  EXPECT_EQ(busy_state(0, 0), BusyState::Free);
  EXPECT_EQ(busy_state(0, 1), BusyState::Busy);
  EXPECT_EQ(busy_state(37, 0), BusyState::Busy);
  EXPECT_EQ(busy_state(37, std::nullopt), BusyState::Busy);
  EXPECT_EQ(busy_state(0, std::nullopt), BusyState::Unknown);
  EXPECT_EQ(busy_state(std::nullopt, std::nullopt), BusyState::Unknown);
  EXPECT_EQ(to_string(BusyState::Free), "free");
}

// Shape of `rocm-smi --json` as ROCm documents its keys; hand-written, not captured on an MI300.
TEST(RocmSmi, ParsesCardsBusAndUse) {
  auto rep = parse_rocm_smi_json(R"J({
    "card0": {"GPU use (%)": "0", "GPU Memory Allocated (VRAM%)": "1", "PCI Bus": "0000:0C:00.0",
              "sclk clock speed:": "(132Mhz)", "mclk clock speed:": "(900Mhz)", "Card series": "AMD Instinct MI300X"},
    "card1": {"GPU use (%)": "87", "PCI Bus": "0000:22:00.0"},
    "system": {"Driver version": "6.10.5"}})J");
  EXPECT_EQ(rep.source, "rocm-smi");
  EXPECT_EQ(rep.driver_version, "6.10.5");
  ASSERT_EQ(rep.devices.size(), 2u);
  EXPECT_EQ(rep.devices[0].pci_bus_id, "0000:0c:00.0");
  EXPECT_EQ(rep.devices[0].utilization_pct, std::optional<int>(0));
  EXPECT_EQ(rep.devices[0].sm_clock_mhz, std::optional<int>(132));
  EXPECT_EQ(rep.devices[0].state, BusyState::Unknown);  // 0 % but the process count is not given
  EXPECT_EQ(rep.devices[1].state, BusyState::Busy);
  EXPECT_NE(find_status(rep, "0000:22:00.0"), nullptr);
  EXPECT_EQ(find_status(rep, "0000:99:00.0"), nullptr);
  EXPECT_EQ(find_status(rep, ""), nullptr);
}

TEST(RocmSmi, NonJsonIsAnError) {
  auto rep = parse_rocm_smi_json("ERROR: GPU[0] : ...");
  EXPECT_TRUE(rep.source.empty());
  EXPECT_FALSE(rep.error.empty());
}

TEST(GpuStatus, QueryNeverThrowsWithoutAGpu) {
  GpuStatusReport rep;
  EXPECT_NO_THROW(rep = query_gpu_status());
  if (rep.source.empty()) {
    EXPECT_FALSE(rep.error.empty());
  }
}

// NVML's reason bits, the H200's samples of 2026-11-30 (docs/perf.md): busy at 1620 MHz under the power cap.
TEST(Clocks, NamesTheReasonsSet) {
  EXPECT_TRUE(clock_event_names(0).empty());
  EXPECT_EQ(clock_event_names(kClockEventSwPowerCap), std::vector<std::string>{"sw_power_cap"});
  EXPECT_EQ(clock_event_names(kClockEventIdle | kClockEventHwThermal | 0x1000),
            (std::vector<std::string>{"idle", "hw_thermal", "other_0x1000"}));
}

TEST(Clocks, SummaryCountsOnlyBusySamples) {
  std::vector<ClockSample> v = {
      {345, 1980, kClockEventIdle, 0},                             // idle between shapes
      {1980, 1980, 0, 100},                                        // busy, full clock
      {1620, 1980, kClockEventSwPowerCap, 100},                    // busy under the cap
      {1215, 1980, kClockEventSwPowerCap | kClockEventHwThermal, 97},  // both
      {1650, 1980, kClockEventSwPowerCap, -1},                     // utilisation unknown: not counted as busy
  };
  const ClockSummary s = summarize_clocks(v);
  EXPECT_EQ(s.samples, 5);
  EXPECT_EQ(s.busy, 3);
  EXPECT_EQ(s.power_capped, 2);
  EXPECT_EQ(s.thermal, 1);
  EXPECT_EQ(s.min_sm_mhz, 1215);
  EXPECT_EQ(s.median_sm_mhz, 1620);
  EXPECT_EQ(s.max_sm_mhz, 1980);
  EXPECT_EQ(clock_event_names(s.reasons), (std::vector<std::string>{"sw_power_cap", "hw_thermal"}));  // busy only
  EXPECT_EQ(summarize_clocks({}).busy, 0);
  EXPECT_EQ(summarize_clocks({}).median_sm_mhz, 0);
}

TEST(Clocks, NoteOnlyWhenABusySampleWasSlowed) {
  ClockSummary s;
  s.samples = 10, s.busy = 8, s.min_sm_mhz = 1980, s.median_sm_mhz = 1980, s.max_sm_mhz = 1980;
  EXPECT_EQ(clock_note(s), "");
  s.power_capped = 7, s.thermal = 1, s.min_sm_mhz = 1410, s.median_sm_mhz = 1455;
  const std::string n = clock_note(s);
  EXPECT_NE(n.find("7 of 8 samples"), std::string::npos) << n;
  EXPECT_NE(n.find("the board's power cap"), std::string::npos) << n;
  EXPECT_NE(n.find("median 1455 MHz, down to 1410, top 1980"), std::string::npos) << n;
  s.power_capped = 0, s.thermal = 3;
  EXPECT_NE(clock_note(s).find("3 of 8 samples with the GPU busy ran under thermal slowdown"), std::string::npos);
}

// A worker's device, as tune's and bench's pools return them: only GPU-backend ones with a bus id are watched.
TEST(Clocks, WatchTakesOnlyGpuDevices) {
  DeviceInfo cpu;
  cpu.backend = "cpu";
  cpu.pci_bus_id = "0000:ff:1f.7";
  ClockWatch w(std::vector<DeviceInfo>{cpu});
  EXPECT_FALSE(w.active());
}

// Without NVML (this CI machine) or without bus ids the watch is inactive and sampling is a no-op.
TEST(Clocks, WatchIsANoOpWhereNvmlDoesNotAnswer) {
  ClockWatch none(std::vector<std::string>{});
  EXPECT_FALSE(none.active());
  none.sample();
  EXPECT_EQ(none.summary().samples, 0);
  ClockWatch absent(std::vector<std::string>{"0000:ff:1f.7"});  // no such device on any machine this runs on
  EXPECT_FALSE(absent.active());
  absent.sample();
  EXPECT_EQ(absent.summary().samples, 0);
}

}  // namespace
}  // namespace cktune::discover
