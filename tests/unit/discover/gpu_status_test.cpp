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

}  // namespace
}  // namespace cktune::discover
