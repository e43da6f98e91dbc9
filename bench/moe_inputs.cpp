// Time to make fused-MoE inputs for a grid of token counts of one configuration (what `tune` prepares
// per shape before the CPU reference): the first token count generates and quantises the expert
// weights, the others share them (make_moe_inputs). Results: docs/perf.md, "Time to tune".
// Usage: moe_inputs [model_dim inter_dim experts topk [token ...]]   (default: DeepSeek-V3 TP8, 1 8 64 512)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cktune/numerics/random.hpp"

int main(int argc, char** argv) {
  using namespace cktune;
  const int D = argc > 4 ? std::atoi(argv[1]) : 7168, I = argc > 4 ? std::atoi(argv[2]) : 256;
  const int E = argc > 4 ? std::atoi(argv[3]) : 256, K = argc > 4 ? std::atoi(argv[4]) : 8;
  std::vector<int> tokens;
  for (int i = 5; i < argc; ++i) tokens.push_back(std::atoi(argv[i]));
  if (tokens.empty()) tokens = {1, 8, 64, 512};
  for (int t : tokens) {
    const auto t0 = std::chrono::steady_clock::now();
    const MoeInputs in = make_moe_inputs(t, D, I, E, K, QuantType::Per1x128, Fp8Format::E4M3FN, 0);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("model_dim=%d inter_dim=%d expert=%d topk=%d token=%d: %.3f s (%.2f GB of inputs)\n", D, I, E, K, t, s,
                in.stored_bytes() / 1e9);
  }
  return 0;
}
