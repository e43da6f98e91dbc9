// Time of the stage-by-stage check of one fused-MoE pipeline (check_moe_stages), what `tune` spends per
// candidate in its "check" phase: a stage 1 that hands stage 2 other fp8 roundings than the reference's (as a
// wgmma stage 1 does) makes the check recompute the reference's stage 2 for the checked tokens; the memo
// (MoeStage2Memo) gives the next check of the same stage-1 output those rows back. Results: docs/perf.md.
// Usage: moe_check [model_dim inter_dim topk checked_tokens]   (default: Qwen3.5-397B-A17B, 31 tokens: the GPU
// backend's sampled reference at that size)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "cktune/numerics/bf16.hpp"
#include "cktune/numerics/random.hpp"
#include "cktune/verify/moe_stages.hpp"

int main(int argc, char** argv) {
  using namespace cktune;
  const bool given = argc > 4;
  const int D = given ? std::atoi(argv[1]) : 4096, I = given ? std::atoi(argv[2]) : 512;
  const int K = given ? std::atoi(argv[3]) : 10, n = given ? std::atoi(argv[4]) : 31;
  const int T = n * 16, E = 32;  // the expert count does not change the check's cost
  const MoeInputs in = make_moe_inputs(T, D, I, E, K, QuantType::Per1x128, Fp8Format::E4M3FN, 5);
  MoeParams p;
  p.quant = QuantType::Per1x128;
  std::vector<int64_t> tokens;
  for (int i = 0; i < n; ++i) tokens.push_back(static_cast<int64_t>(i) * 16);
  const MoeStage1Out ref1 = ref_moe_stage1_tokens(in, p, tokens);
  std::vector<float> ref_out(tokens.size() * static_cast<size_t>(D));
  ref_moe_stage2_tokens(in, p, ref1, tokens, ref_out.data());
  std::vector<uint16_t> a, out;
  for (float v : ref1.a) a.push_back(float_to_bf16(v));
  for (size_t i = 0; i < a.size(); i += 97) a[i] = static_cast<uint16_t>(a[i] + 1);  // one bf16 step, every 97th
  // The pipeline's output: the reference's stage 2 on this stage 1's rows (what a correct stage 2 computes).
  MoeStage1Out mine;
  mine.tokens = n;
  mine.topk = K;
  mine.inter_dim = I;
  for (uint16_t v : a) mine.a.push_back(bf16_to_float(v));
  requantize_stage1(mine, in);
  std::vector<float> y(ref_out.size());
  ref_moe_stage2_tokens(in, p, mine, tokens, y.data());
  for (float v : y) out.push_back(float_to_bf16(v));
  const MoeStageOutputs o{.tokens = tokens, .ref_a = ref1.a.data(), .ref_out = ref_out.data(), .a = a.data(),
                          .out = out.data()};
  MoeStage2Memo memo;
  for (int rep = 0; rep < 3; ++rep)
    for (MoeStage2Memo* m : {static_cast<MoeStage2Memo*>(nullptr), &memo}) {
      const auto t0 = std::chrono::steady_clock::now();
      const CheckResult r = check_moe_stages(in, p, o, Tolerance::moe(), 0, m);
      const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      std::printf("model_dim=%d inter_dim=%d topk=%d tokens checked=%d, %s: %.1f ms (%s)\n", D, I, K, n,
                  m == nullptr ? "no memo" : (rep == 0 ? "memo, first" : "memo, again"), ms, std::string(to_string(r.verdict)).c_str());
    }
  return 0;
}
