#include "cktune/formats/family.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

namespace cktune {

namespace {

using Cols = std::string_view;

constexpr Cols kUntunedMNK[] = {"M", "N", "K"};
constexpr Cols kUntunedMNKQ[] = {"M", "N", "K", "q_dtype_w"};
constexpr Cols kUntunedBMNK[] = {"B", "M", "N", "K"};
constexpr Cols kUntunedMoe[] = {"token", "model_dim", "inter_dim", "expert",   "topk",     "act_type",
                                "dtype", "q_dtype_a", "q_dtype_w", "q_type", "use_g1u1", "doweight_stage1"};

constexpr Cols kTunedA8W8[] = {"gfx",  "cu_num",   "M",      "N",      "K",  "q_dtype_w", "kernelId",
                               "splitK", "us", "kernelName", "tflops", "bw", "errRatio"};
constexpr Cols kTunedBlockscale[] = {"gfx",    "cu_num", "M",  "N",          "K",      "libtype", "kernelId",
                                     "splitK", "us",     "kernelName", "tflops", "bw",      "errRatio"};
constexpr Cols kTunedBpreshuffle[] = {"gfx",      "cu_num", "M",  "N",          "K",      "q_dtype_w", "libtype",
                                      "kernelId", "splitK", "us", "kernelName", "tflops", "bw",        "errRatio"};
constexpr Cols kTunedA4W4[] = {"gfx", "cu_num", "M", "N", "K", "kernelId", "splitK", "us", "kernelName",
                               "tflops", "bw", "errRatio"};
constexpr Cols kTunedBatched[] = {"gfx", "cu_num", "B", "M", "N", "K", "kernelId", "splitK", "us",
                                  "kernelName", "tflops", "bw", "errRatio"};
constexpr Cols kTunedMoe[] = {"gfx",        "cu_num",      "token",     "model_dim", "inter_dim", "expert",
                              "topk",       "act_type",    "dtype",     "q_dtype_a", "q_dtype_w", "q_type",
                              "use_g1u1",   "doweight_stage1", "block_m", "ksplit",  "us1",       "kernelName1",
                              "err1",       "us2",         "kernelName2", "err2",    "us",        "run_1stage",
                              "xbf16",      "flat",        "tflops",    "bw"};

const std::array<FamilySpec, 8> kSpecs = {{
    {Family::A8W8, "a8w8", kUntunedMNKQ, kTunedA8W8, "M", "a8w8_untuned_gemm.csv", "a8w8_tuned_gemm.csv",
     "AITER_CONFIG_GEMM_A8W8", false, false, false},
    {Family::A8W8Blockscale, "a8w8_blockscale", kUntunedMNK, kTunedBlockscale, "M",
     "a8w8_blockscale_untuned_gemm.csv", "a8w8_blockscale_tuned_gemm.csv", "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE", true,
     false, false},
    {Family::A8W8BlockscaleBpreshuffle, "a8w8_blockscale_bpreshuffle", kUntunedMNK, kTunedBlockscale, "M",
     "a8w8_blockscale_bpreshuffle_untuned_gemm.csv", "a8w8_blockscale_bpreshuffle_tuned_gemm.csv",
     "AITER_CONFIG_GEMM_A8W8_BLOCKSCALE_BPRESHUFFLE", true, false, false},
    {Family::A8W8Bpreshuffle, "a8w8_bpreshuffle", kUntunedMNKQ, kTunedBpreshuffle, "M",
     "a8w8_bpreshuffle_untuned_gemm.csv", "a8w8_bpreshuffle_tuned_gemm.csv", "AITER_CONFIG_GEMM_A8W8_BPRESHUFFLE",
     true, false, false},
    {Family::A4W4Blockscale, "a4w4_blockscale", kUntunedMNK, kTunedA4W4, "M", "a4w4_blockscale_untuned_gemm.csv",
     "a4w4_blockscale_tuned_gemm.csv", "AITER_CONFIG_GEMM_A4W4", false, false, false},
    {Family::BatchedA8W8, "batched_a8w8", kUntunedBMNK, kTunedBatched, "M", "a8w8_untuned_batched_gemm.csv",
     "a8w8_tuned_batched_gemm.csv", "AITER_CONFIG_A8W8_BATCHED_GEMM", false, false, true},
    {Family::BatchedBf16, "batched_bf16", kUntunedBMNK, kTunedBatched, "M", "bf16_untuned_batched_gemm.csv",
     "bf16_tuned_batched_gemm.csv", "AITER_CONFIG_BF16_BATCHED_GEMM", false, false, true},
    {Family::Moe2Stages, "moe_2stages", kUntunedMoe, kTunedMoe, "token", "untuned_fmoe.csv", "tuned_fmoe.csv",
     "AITER_CONFIG_FMOE", false, true, false},
}};

}  // namespace

const FamilySpec& spec(Family f) { return kSpecs[static_cast<size_t>(f)]; }

std::string_view family_name(Family f) { return spec(f).name; }

std::optional<Family> family_from_name(std::string_view name) {
  for (const auto& s : kSpecs)
    if (s.name == name) return s.family;
  return std::nullopt;
}

std::optional<Family> family_from_file_name(std::string_view path) {
  auto slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  // Longest stem first: "a8w8_blockscale_bpreshuffle_tuned_gemm" before "a8w8_blockscale_tuned_gemm".
  std::optional<Family> best;
  size_t best_len = 0;
  for (const auto& s : kSpecs) {
    for (std::string_view file : {s.tuned_file, s.untuned_file}) {
      std::string_view stem = file.substr(0, file.size() - 4);  // drop ".csv"
      if (stem.size() > best_len && base.find(stem) != std::string_view::npos) {
        best = s.family;
        best_len = stem.size();
      }
    }
  }
  return best;
}

std::string_view legacy_gfx_for_cu_num(long cu_num) {
  if (cu_num == 256) return "gfx950";
  if (cu_num == 80 || cu_num == 304) return "gfx942";
  return {};
}

}  // namespace cktune
