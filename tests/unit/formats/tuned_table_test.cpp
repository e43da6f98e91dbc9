#include "cktune/formats/tuned_table.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/core/io.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;

// The provenance sidecar names the device and the boards (UUIDs) a table was tuned on; bench --config says when it
// runs a table on another device, or on another board of the same model.
TEST(TableOrigin, ReadsTheDeviceAndEveryBoardOfTheTune) {
  fs::path dir = fs::temp_directory_path() / "cktune_table_origin_test";
  fs::create_directories(dir);
  const std::string table = (dir / "a8w8_blockscale_tuned_gemm.csv").string();
  EXPECT_FALSE(read_table_origin(table)) << "no sidecar: no origin";

  write_file_atomic(provenance_path(table),
                    R"({"gfx": "sm_90", "cu_num": 132, "devices": [)"
                    R"({"name": "NVIDIA H200", "uuid": "GPU-aaaa"}, {"name": "NVIDIA H200", "uuid": "GPU-bbbb"}]})");
  auto o = read_table_origin(table);
  ASSERT_TRUE(o);
  EXPECT_EQ(o->gfx, "sm_90");
  EXPECT_EQ(o->cu_num, 132);
  EXPECT_EQ(o->device, "NVIDIA H200");
  ASSERT_EQ(o->uuids.size(), 2u);
  EXPECT_FALSE(o->other_board("sm_90", 132, "GPU-bbbb"));  // one of the tune's boards (--mp 2)
  EXPECT_TRUE(o->other_board("sm_90", 132, "GPU-cccc"));
  EXPECT_FALSE(o->other_board("sm_90", 132, ""));        // this device names no board
  EXPECT_FALSE(o->other_board("gfx942", 304, "GPU-cccc"));  // another device altogether: bench warns about that

  // An older sidecar without UUIDs: no board to compare.
  write_file_atomic(provenance_path(table), R"({"gfx": "sm_90", "cu_num": 132, "devices": [{"name": "NVIDIA H200"}]})");
  o = read_table_origin(table);
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->uuids.empty());
  EXPECT_FALSE(o->other_board("sm_90", 132, "GPU-cccc"));

  // The sidecar as it is (merge records its inputs'): null without one or for stdin; one that is not JSON is an
  // InputError naming it for merge, and no origin for bench.
  EXPECT_EQ(read_table_provenance(table)["devices"][0]["name"], "NVIDIA H200");
  EXPECT_TRUE(read_table_provenance("-").is_null());
  EXPECT_TRUE(read_table_provenance((dir / "none.csv").string()).is_null());
  write_file_atomic(provenance_path(table), "{not json");
  try {
    read_table_provenance(table);
    ADD_FAILURE() << "an invalid sidecar was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("provenance.json"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(read_table_origin(table));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cktune
