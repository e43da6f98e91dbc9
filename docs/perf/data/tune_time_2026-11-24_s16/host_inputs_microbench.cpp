#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <thread>
#include "cktune/numerics/random.hpp"
#include "cktune/numerics/parallel.hpp"
using namespace cktune;
static double ms(std::chrono::steady_clock::time_point a){return std::chrono::duration<double,std::milli>(std::chrono::steady_clock::now()-a).count();}
using C = std::chrono::steady_clock;
int main() {
  const size_t n = size_t(8192) * 16384;
  std::printf("hw threads %u\n", std::thread::hardware_concurrency());
  auto t = C::now(); std::vector<uint8_t> v(n); std::printf("zero-fill vector %.1f ms\n", ms(t));
  RandomStream s(42, 1);
  Fp8OfDraw enc([](uint32_t u){ return RandomStream::range_of(u, -0.1f, 0.1f); }, Fp8Format::E4M3FN);
  for (int th : {1, 4, 8, 16}) {
    t = C::now();
    parallel_for(int64_t(n), th, [&](int64_t lo, int64_t hi){ for (int64_t i = lo; i < hi; ++i) v[i] = enc(s.u24(i)); });
    std::printf("generate into touched memory, %d threads: %.1f ms\n", th, ms(t));
  }
  t = C::now(); std::unique_ptr<uint8_t[]> raw(new uint8_t[n]);
  parallel_for(int64_t(n), 0, [&](int64_t lo, int64_t hi){ for (int64_t i = lo; i < hi; ++i) raw[i] = enc(s.u24(i)); });
  std::printf("generate into fresh memory, all threads: %.1f ms\n", ms(t));
  t = C::now(); std::vector<uint8_t> c = v; std::printf("copy vector %.1f ms %d %d\n", ms(t), c[5], raw[7]);
  t = C::now(); auto in = make_blockscale_inputs(8192, 7168, 16384, Fp8Format::E4M3FN, 42); std::printf("make_blockscale_inputs 8192x7168x16384 %.1f ms\n", ms(t));
}
