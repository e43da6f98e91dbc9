// TunedTable (put/replace/sort/save round-trip) and RunState (the journal behind resume).
#include "cktune/tune/state.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/core/error.hpp"
#include "cktune/formats/csv.hpp"
#include "cktune/tune/tuner.hpp"

namespace cktune {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("cktune_state_test_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

ProblemKey gemm(const std::string& m, const std::string& n, const std::string& k) {
  ProblemKey key;
  key.family = Family::A8W8Blockscale;
  key.cells = {m, n, k};
  return key;
}

// gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio
std::vector<std::string> row(const std::string& m, const std::string& n, const std::string& k, const std::string& name,
                             const std::string& gfx = "cpu") {
  return {gfx, "2", m, n, k, "cktune_cpu", "1", "1", "10.0", name, "0.1", "0.2", "0.0"};
}

const char* kHeader = "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio\n";

TEST(TunedTable, NewTableHasTheFamilyHeaderAndSortsLikeAiter) {
  TempDir d;
  std::string out = d.file("t.csv");
  auto t = TunedTable::open(out, Family::A8W8Blockscale);
  EXPECT_FALSE(fs::exists(out));  // nothing written before the first save
  t.put(row("64", "512", "256", "c"));
  t.put(row("1", "512", "256", "a"));
  t.put(row("16", "128", "1024", "b"));
  t.put(row("2", "128", "128", "z", "gfx942"));
  t.save();
  EXPECT_EQ(slurp(out), std::string(kHeader) +
                            "cpu,2,16,128,1024,cktune_cpu,1,1,10.0,b,0.1,0.2,0.0\n"
                            "cpu,2,1,512,256,cktune_cpu,1,1,10.0,a,0.1,0.2,0.0\n"
                            "cpu,2,64,512,256,cktune_cpu,1,1,10.0,c,0.1,0.2,0.0\n"
                            "gfx942,2,2,128,128,cktune_cpu,1,1,10.0,z,0.1,0.2,0.0\n");
}

TEST(TunedTable, PutReplacesTheRowWithTheSameKey) {
  TempDir d;
  std::string out = d.file("t.csv");
  auto t = TunedTable::open(out, Family::A8W8Blockscale);
  t.put(row("1", "128", "256", "old"));
  t.put(row("1", "128", "256", "new"));
  EXPECT_EQ(t.csv().rows.size(), 1u);
  EXPECT_EQ(t.kernel_for("cpu", 2, gemm("1", "128", "256")), "new");
  EXPECT_TRUE(t.has("cpu", 2, gemm("1", "128", "256")));
  EXPECT_FALSE(t.has("cpu", 3, gemm("1", "128", "256")));  // another cu_num is another key
  EXPECT_FALSE(t.has("gfx942", 2, gemm("1", "128", "256")));
  EXPECT_EQ(t.kernel_for("cpu", 2, gemm("2", "128", "256")), "");
}

TEST(TunedTable, SaveReopenRoundTripKeepsExistingCellsExactly) {
  TempDir d;
  std::string out = d.file("t.csv");
  // An existing table with AITER-written cells (trailing zeros, another kernel) and an extra column.
  std::ofstream(out) << "gfx,cu_num,M,N,K,libtype,kernelId,splitK,us,kernelName,tflops,bw,errRatio,_tag\n"
                        "gfx942,304,0032,128,256,ck,7,0,12.50,ck_kernel,1.00,2.0,0.000,x\n";
  auto t = TunedTable::open(out, Family::A8W8Blockscale);
  EXPECT_TRUE(t.has("gfx942", 304, gemm("32", "128", "256")));  // keys compare canonically
  t.put(row("1", "128", "256", "mine"));
  t.save();
  auto again = TunedTable::open(out, Family::A8W8Blockscale);
  EXPECT_EQ(again.csv().header.back(), "_tag");  // the table keeps its own columns
  EXPECT_EQ(again.kernel_for("gfx942", 304, gemm("32", "128", "256")), "ck_kernel");
  EXPECT_EQ(again.kernel_for("cpu", 2, gemm("1", "128", "256")), "mine");
  std::string text = slurp(out);
  EXPECT_NE(text.find("gfx942,304,0032,128,256,ck,7,0,12.50,ck_kernel,1.00,2.0,0.000,x\n"), std::string::npos) << text;
  EXPECT_NE(text.find("cpu,2,1,128,256,cktune_cpu,1,1,10.0,mine,0.1,0.2,0.0,\n"), std::string::npos) << text;
  // Saving an unchanged table rewrites the same bytes.
  again.save();
  EXPECT_EQ(slurp(out), text);
}

TEST(TunedTable, RefusesTablesItCannotExtend) {
  TempDir d;
  std::string dup = d.file("dup.csv");
  std::ofstream(dup) << kHeader << "cpu,2,1,128,256,a,1,1,1.0,k,0,0,0\ncpu,2,1,128,256,a,1,1,2.0,k,0,0,0\n";
  EXPECT_THROW(TunedTable::open(dup, Family::A8W8Blockscale), InputError);
  std::string other = d.file("other.csv");
  std::ofstream(other) << "gfx,cu_num,token,model_dim\ncpu,2,1,2\n";
  EXPECT_THROW(TunedTable::open(other, Family::A8W8Blockscale), InputError);
  std::string no_gfx = d.file("nogfx.csv");
  std::ofstream(no_gfx) << "cu_num,M,N,K,kernelName\n2,1,2,3,k\n";
  EXPECT_THROW(TunedTable::open(no_gfx, Family::A8W8Blockscale), InputError);
}

TEST(RunState, ResumesTheSameRunAndForgetsAnother) {
  TempDir d;
  std::string out = d.file("t.csv");
  {
    auto s = RunState::open(out, "run-a");
    EXPECT_FALSE(s.status(gemm("1", "2", "3")).has_value());
    s.record(gemm("1", "2", "3"), JournalStatus::Tuned, "k1");
    s.record(gemm("4", "5", "6"), JournalStatus::Failed, "no candidate passed");
    s.record(gemm("7", "8", "9"), JournalStatus::Kept, "k0");
  }
  EXPECT_TRUE(fs::exists(sidecar_dir(out) + "/journal.jsonl"));
  {
    auto s = RunState::open(out, "run-a");  // same identity: resume
    EXPECT_TRUE(s.status(gemm("1", "2", "3")).has_value());
    EXPECT_TRUE(s.status(gemm("7", "8", "9")).has_value());
    EXPECT_EQ(s.status(gemm("4", "5", "6")), JournalStatus::Failed);  // the tuner decides what a failure means
    EXPECT_FALSE(s.status(gemm("9", "9", "9")).has_value());
  }
  {
    auto s = RunState::open(out, "run-b");  // another identity: nothing is done, old journal set aside
    EXPECT_FALSE(s.status(gemm("1", "2", "3")).has_value());
    EXPECT_TRUE(fs::exists(sidecar_dir(out) + "/journal.jsonl.previous"));
  }
  {
    auto s = RunState::open(out, "run-a");  // the journal now belongs to run-b
    EXPECT_FALSE(s.status(gemm("1", "2", "3")).has_value());
  }
}

TEST(RunState, ALineCutShortByAKillIsRedone) {
  TempDir d;
  std::string out = d.file("t.csv");
  {
    auto s = RunState::open(out, "run-a");
    s.record(gemm("1", "2", "3"), JournalStatus::Tuned, "k1");
  }
  std::ofstream(sidecar_dir(out) + "/journal.jsonl", std::ios::app) << "{\"key\":[\"4\",\"5\",\"6\"],\"sta";
  auto s = RunState::open(out, "run-a");
  EXPECT_TRUE(s.status(gemm("1", "2", "3")).has_value());
  EXPECT_FALSE(s.status(gemm("4", "5", "6")).has_value());
  s.record(gemm("4", "5", "6"), JournalStatus::Tuned, "k2");  // appending after the torn line still works
  auto s2 = RunState::open(out, "run-a");
  EXPECT_TRUE(s2.status(gemm("4", "5", "6")).has_value());
}

TEST(RunIdentity, SameCommandSameIdentity) {
  TuneOptions o;
  o.input = "a.csv";
  o.output = "t.csv";
  DeviceInfo dev;
  dev.name = "cpu";
  dev.gfx = "cpu";
  dev.cu_num = 2;
  std::vector<ProblemKey> keys = {gemm("1", "2", "3"), gemm("4", "5", "6")};
  std::vector<std::string> cands = {"a", "b"};
  const std::string base = run_identity(o, Family::A8W8Blockscale, keys, cands, dev);
  EXPECT_EQ(run_identity(o, Family::A8W8Blockscale, keys, cands, dev), base);
  auto differs = [&](auto change) {
    TuneOptions o2 = o;
    auto keys2 = keys;
    auto cands2 = cands;
    DeviceInfo dev2 = dev;
    change(o2, keys2, cands2, dev2);
    return run_identity(o2, Family::A8W8Blockscale, keys2, cands2, dev2) != base;
  };
  using K = std::vector<ProblemKey>;
  using C = std::vector<std::string>;
  EXPECT_TRUE(differs([](TuneOptions& x, K&, C&, DeviceInfo&) { x.measure.protocol.seed = 1; }));
  EXPECT_TRUE(differs([](TuneOptions& x, K&, C&, DeviceInfo&) { x.all = true; }));
  EXPECT_TRUE(differs([](TuneOptions& x, K&, C&, DeviceInfo&) { x.shard = "1/2"; }));
  EXPECT_TRUE(differs([](TuneOptions& x, K&, C&, DeviceInfo&) { x.min_improvement_pct = 5.0; }));
  EXPECT_TRUE(differs([](TuneOptions&, K& k, C&, DeviceInfo&) { k.pop_back(); }));
  EXPECT_TRUE(differs([](TuneOptions&, K&, C& c, DeviceInfo&) { c.push_back("c"); }));
  EXPECT_TRUE(differs([](TuneOptions&, K&, C&, DeviceInfo& v) { v.cu_num = 3; }));
  // What does not change the decisions does not change the identity: resuming with --retry-failed.
}

// The provenance names each device as the engine does everywhere, so that tables tuned on two GPUs of the same model
// can be told apart.
TEST(Provenance, NamesEachDeviceWithItsBusUuidAndSizes) {
  TempDir dir;
  TuneOptions o;
  o.output = dir.file("tuned.csv");
  o.input = dir.file("untuned.csv");
  DeviceInfo d;
  d.backend = "gpu";
  d.name = "NVIDIA H200";
  d.gfx = "sm_90";
  d.cu_num = 132;
  d.pci_bus_id = "0000:00:06.0";
  d.uuid = "GPU-082af63b-aecb-ecc3-16f5-ca2658e93a3e";
  d.l2_bytes = 50u << 20;
  d.memory_total_bytes = 150ull << 30;
  d.driver = "13.0";
  write_provenance(o, Family::A8W8Blockscale, {d}, 3, "finished");
  const nlohmann::json j = nlohmann::json::parse(slurp(provenance_path(o.output)));
  ASSERT_EQ(j["devices"].size(), 1u);
  const auto& got = j["devices"][0];
  EXPECT_EQ(got["pci_bus_id"], "0000:00:06.0");
  EXPECT_EQ(got["uuid"], "GPU-082af63b-aecb-ecc3-16f5-ca2658e93a3e");  // the board, where VMs repeat bus ids
  EXPECT_EQ(got["name"], "NVIDIA H200");
  EXPECT_EQ(got["cu_num"], 132);
  EXPECT_EQ(got["l2_bytes"], 50u << 20);
  EXPECT_EQ(got["memory_total_bytes"], 150ull << 30);
  EXPECT_EQ(j["gfx"], "sm_90");
  EXPECT_EQ(j["status"], "finished");
  EXPECT_FALSE(j.contains("profile"));  // no -o2
  // With -o2 the profile is named (absolute), where `report` finds a fused-MoE table's pipeline times.
  o.profile_file = dir.file("profile.csv");
  write_provenance(o, Family::A8W8Blockscale, {d}, 3, "finished");
  const nlohmann::json k = nlohmann::json::parse(slurp(provenance_path(o.output)));
  EXPECT_EQ(k.value("profile", ""), std::filesystem::absolute(o.profile_file).string());
}

TEST(Sidecars, NotCsvFilesNextToTheTable) {
  EXPECT_EQ(sidecar_dir("dir/a8w8_blockscale_tuned_gemm.csv"), "dir/a8w8_blockscale_tuned_gemm.csv.cktune");
  EXPECT_EQ(provenance_path("dir/x.csv"), "dir/x.csv.provenance.json");
}

}  // namespace
}  // namespace cktune
