#include "cktune/engine/tuned_row.hpp"

#include "cktune/formats/cells.hpp"

namespace cktune {

namespace {

NamedCells key_cells(const ProblemKey& key, const DeviceInfo& device) {
  NamedCells cells;
  cells.emplace_back("gfx", device.gfx);
  cells.emplace_back("cu_num", format_int(device.cu_num));
  const auto& cols = spec(key.family).untuned;
  for (size_t i = 0; i < cols.size(); ++i) cells.emplace_back(cols[i], key.cells[i]);
  return cells;
}

std::string py_bool(bool b) { return b ? "1" : "0"; }

}  // namespace

std::vector<std::string> gemm_tuned_row(const ProblemKey& key, const DeviceInfo& device, const CandidateResult& r) {
  NamedCells cells = key_cells(key, device);
  const double us = r.time.median_us;
  if (spec(key.family).has_libtype) cells.emplace_back("libtype", std::string(to_string(r.provider)));
  cells.emplace_back("kernelId", format_int(r.id));
  cells.emplace_back("splitK", format_int(r.split_k));
  cells.emplace_back("us", format_us(us));
  cells.emplace_back("kernelName", r.name);
  cells.emplace_back("tflops", format_tflops(key.flops() / (us * 1e6)));
  cells.emplace_back("bw", format_bw(key.min_bytes_or(r.min_bytes) / (us * 1e-6) / 1e9));
  cells.emplace_back("errRatio", format_err_ratio(r.check.err_ratio));
  return make_tuned_row(key.family, cells);
}

std::vector<std::string> moe_tuned_row(const ProblemKey& key, const DeviceInfo& device, const MoeRowParts& p) {
  NamedCells cells = key_cells(key, device);
  const double us = p.us1 + p.us2;
  cells.emplace_back("block_m", format_int(p.block_m));
  cells.emplace_back("ksplit", format_int(p.ksplit));
  cells.emplace_back("us1", format_us(p.us1));
  cells.emplace_back("kernelName1", p.kernel1);
  cells.emplace_back("err1", format_moe_err(p.err1));
  cells.emplace_back("us2", format_us(p.us2));
  cells.emplace_back("kernelName2", p.kernel2);
  cells.emplace_back("err2", format_moe_err(p.err2));
  cells.emplace_back("us", format_us(us));
  cells.emplace_back("run_1stage", py_bool(p.run_1stage));
  cells.emplace_back("xbf16", py_bool(false));
  cells.emplace_back("flat", py_bool(false));
  cells.emplace_back("tflops", format_tflops(key.flops() / (us * 1e6)));
  cells.emplace_back("bw", format_bw(key.min_bytes_or(p.min_bytes) / (us * 1e-6) / 1e9));
  return make_tuned_row(key.family, cells);
}

std::vector<std::string> moe_single_unit_tuned_row(const ProblemKey& key, const DeviceInfo& device,
                                                   const CandidateResult& r, const InstanceDesc& desc) {
  MoeRowParts p;
  const std::string block_m = desc.param("block_m");
  p.block_m = block_m.empty() ? 0 : std::stoi(block_m);
  p.ksplit = r.split_k > 1 ? r.split_k : 0;
  p.us1 = r.time.median_us;
  p.kernel1 = r.name;
  p.err1 = r.check.err_ratio;
  p.min_bytes = r.min_bytes;
  p.run_1stage = true;
  return moe_tuned_row(key, device, p);
}

}  // namespace cktune
