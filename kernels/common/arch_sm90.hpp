#pragma once
// NVIDIA-only inner-loop primitives (sm_89+ for the fp8 mma.sync, sm_90a for wgmma / TMA /
// mbarrier). Everything vendor-specific that the kernels need sits here behind small inline
// functions; the AMD build gets the same names from arch_gfx9.hpp (MFMA, buffer loads) when that
// side is written. Kernels never write inline assembly themselves.
#include <cstdint>

#include "compat.hpp"
#include "register_split.hpp"

#if defined(CKTUNE_CUDA)

namespace cktune::gpu::sm90 {

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// The dynamic shared memory rounded up to kAlign bytes, by pointer arithmetic on the shared array
// itself: the compiler then still knows every pointer derived from it to be shared and emits
// ld/st.shared. (Rounding the integer address instead made those pointers generic, so that every
// staging access in an epilogue went through the generic load/store path.)
template <unsigned kAlign>
__device__ __forceinline__ uint8_t* align_smem(uint8_t* raw) {
  return raw + ((kAlign - (smem_u32(raw) & (kAlign - 1))) & (kAlign - 1));
}

// 16-byte global->shared copy that bypasses L1; src_bytes = 0 fills the 16 bytes with zeros (used
// for rows past M or N, with a clamped, valid source address).
__device__ __forceinline__ void cp_async_16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_4(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
__device__ __forceinline__ int ld_shared_s32(uint32_t addr) {
  int v;
  asm volatile("ld.shared.b32 %0, [%1];\n" : "=r"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ void st_shared_s32(uint32_t addr, int v) {
  asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(addr), "r"(v) : "memory");
}
__device__ __forceinline__ float ld_shared_f32(uint32_t addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];\n" : "=f"(v) : "r"(addr) : "memory");
  return v;
}
__device__ __forceinline__ float4 ld_shared_f32x4(uint32_t addr) {  // addr: 16-byte aligned
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr) : "memory");
  return v;
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// ldmatrix: four / two 8x(16 byte) tiles; lane l gives the row address of tile l/8.
__device__ __forceinline__ void ldmatrix_x4(uint32_t addr, uint32_t& r0, uint32_t& r1, uint32_t& r2,
                                            uint32_t& r3) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3)
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2(uint32_t addr, uint32_t& r0, uint32_t& r1) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(addr));
}

// D(16x8 f32) += A(16x32 e4m3, row) * B(32x8 e4m3, col).
__device__ __forceinline__ void mma_e4m3_16832(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                               uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The same shape on int8 (sm_80+): s8 x s8 products summed exactly into s32.
__device__ __forceinline__ void mma_s8_16832(int (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// ---- mbarrier (sm_90) ----
__device__ __forceinline__ void mbar_init(uint64_t* bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_u32(bar)), "r"(count));
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_u32(bar)),
               "r"(bytes));
}
// The _at forms take the barrier's shared-memory address, so that a loop can compute it from a base held in a
// register instead of converting a generic pointer every time.
__device__ __forceinline__ void mbar_arrive_at(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar));
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) { mbar_arrive_at(smem_u32(bar)); }
__device__ __forceinline__ void mbar_wait_at(uint32_t bar, uint32_t phase) {
  asm volatile(
      "{\n"
      ".reg .pred p;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
      "@!p bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(phase));
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t phase) { mbar_wait_at(smem_u32(bar), phase); }
// The barrier receives one arrival once every cp.async this thread issued before has landed; the
// arrival is one of the count the barrier was initialised with.
__device__ __forceinline__ void cp_async_mbar_arrive_noinc(uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void fence_barrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::);
}

// ---- thread-block clusters (sm_90) ----
// This CTA's rank in its cluster.
__device__ __forceinline__ uint32_t cluster_ctarank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
// The address of the same shared-memory location in the cluster's CTA `rank` (a shared::cluster address).
__device__ __forceinline__ uint32_t cluster_map_smem(uint32_t saddr, uint32_t rank) {
  uint32_t r;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(r) : "r"(saddr), "r"(rank));
  return r;
}
// One arrival on an mbarrier of any CTA in the cluster (`cluster_addr` from cluster_map_smem), with the default
// release at CTA scope: enough for a stage that only wgmma read (their wait already ordered those reads). A
// cluster-scope release made each arrival wait for the thread's memory traffic: the multicast kernel ran at half
// speed with it (docs/perf.md, 2026-11-29).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t cluster_addr) {
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];\n" ::"r"(cluster_addr) : "memory");
}
// The two halves of a cluster barrier, for a barrier taken early and waited for late: every thread of every CTA
// arrives once (relaxed: after fence_barrier_init it publishes the mbarriers' initialisation, nothing else) and
// waits before it first touches another CTA's shared memory, or before it exits. Each warp must reach them whole.
__device__ __forceinline__ void cluster_arrive_relaxed() {
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() { asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory"); }
// Two floats into another CTA's shared memory (`dst`, a shared::cluster address), their 8 bytes completing as
// transaction bytes on that CTA's mbarrier (`bar`, its shared::cluster address).
__device__ __forceinline__ void st_async_f32x2(uint32_t dst, float a, float b, uint32_t bar) {
  asm volatile("st.async.shared::cluster.mbarrier::complete_tx::bytes.v2.f32 [%0], {%1, %2}, [%3];\n" ::"r"(dst),
               "f"(a), "f"(b), "r"(bar)
               : "memory");
}
// Every thread of every CTA in the cluster arrives, then waits for all the others (release / acquire at
// cluster scope). Each warp must reach it whole.
__device__ __forceinline__ void cluster_sync_all() {
  asm volatile(
      "barrier.cluster.arrive.release.aligned;\n"
      "barrier.cluster.wait.acquire.aligned;\n" ::
          : "memory");
}

// ---- TMA (cp.async.bulk.tensor, sm_90) ----
// 2-D tile load: coordinates are (inner = K element, outer = row); rows past the tensor are zero.
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const void* tmap, uint64_t* bar, int c0,
                                            int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
      "%4}], [%2];\n" ::"r"(dst),
      "l"(tmap), "r"(smem_u32(bar)), "r"(c0), "r"(c1)
      : "memory");
}
// 3-D tile load into shared memory (the box in dimension order, dimension 0 innermost).
__device__ __forceinline__ void tma_load_3d(uint32_t dst, const void* tmap, uint64_t* bar, int c0, int c1, int c2) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, "
      "%4, %5}], [%2];\n" ::"r"(dst),
      "l"(tmap), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "r"(c2)
      : "memory");
}
// The same load multicast into every CTA of the cluster named in `mask` (bit r = CTA rank r): the box lands at
// offset `dst` of each one's shared memory, and each one's barrier at `bar`'s offset receives the bytes.
__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const void* tmap, uint64_t* bar, int c0, int c1,
                                                      uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster [%0], [%1, {%3, "
      "%4}], [%2], %5;\n" ::"r"(dst),
      "l"(tmap), "r"(smem_u32(bar)), "r"(c0), "r"(c1), "h"(mask)
      : "memory");
}
// 2-D tile store from shared memory (rows/columns past the tensor are not written).
__device__ __forceinline__ void tma_store_2d(const void* tmap, uint32_t src, int c0, int c1) {
  asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%2, %3}], [%1];\n" ::"l"(tmap), "r"(src),
               "r"(c0), "r"(c1)
               : "memory");
}
// Two floats rounded to nearest-even bf16 and packed (lo = first element in memory); sm_80+.
__device__ __forceinline__ uint32_t cvt_bf16x2(float lo, float hi) {
  uint32_t r;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(hi), "f"(lo));
  return r;
}
// Atomic adds in L2 (no return value): two bf16 (one 32-bit word), or eight (four words, 16 bytes,
// sm_90); each add rounds to bf16.
__device__ __forceinline__ void red_add_bf16x2(uint16_t* dst, uint32_t v) {
  asm volatile("red.global.add.noftz.bf16x2 [%0], %1;\n" ::"l"(dst), "r"(v) : "memory");
}
__device__ __forceinline__ void red_add_bf16x8(uint16_t* dst, uint4 v) {
  asm volatile("red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};\n" ::"l"(dst), "r"(v.x), "r"(v.y), "r"(v.z),
               "r"(v.w)
               : "memory");
}
// The same, only where `on` holds (a predicated instruction: no branch around it).
__device__ __forceinline__ void red_add_bf16x8_if(uint16_t* dst, uint4 v, bool on) {
  asm volatile(
      "{\n .reg .pred p;\n setp.ne.b32 p, %5, 0;\n @p red.global.add.noftz.v4.bf16x2 [%0], {%1, %2, %3, %4};\n}\n" ::"l"(dst),
      "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "r"(static_cast<int>(on))
      : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Wait until the issued bulk stores have finished reading shared memory (the buffer is reusable).
__device__ __forceinline__ void bulk_wait_read0() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
__device__ __forceinline__ void bulk_wait0() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
// Ordinary shared-memory stores made visible to the async proxy (TMA) before it reads them.
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void tma_prefetch_desc(const void* tmap) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(tmap) : "memory");
}

// ---- wgmma (sm_90a) ----
// Barrier `id` (1..15; 0 is __syncthreads) over `threads` threads (a multiple of 32): a warpgroup's own.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
// Arrive at barrier `id` without waiting (the threads that sync on it wait for these arrivals too).
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// Shared-memory matrix descriptor for a K-major tile stored with the 128-byte swizzle: rows of
// 128 bytes, 8-row groups 1024 bytes apart (stride byte offset), leading byte offset unused.
__device__ __forceinline__ uint64_t smem_desc_sw128(uint32_t saddr) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((saddr & 0x3ffff) >> 4);
  d |= static_cast<uint64_t>(1) << 16;             // leading byte offset (ignored for this mode)
  d |= static_cast<uint64_t>(1024 >> 4) << 32;     // stride byte offset
  d |= static_cast<uint64_t>(1) << 62;             // 128-byte swizzle
  return d;
}

// Descriptor of a K-major operand without swizzle: 8-row x 16-byte core matrices stored whole (128
// contiguous bytes), `lbo` bytes apart along K and `sbo` bytes apart along the rows.
__device__ __forceinline__ uint64_t smem_desc_interleave(uint32_t saddr, uint32_t lbo, uint32_t sbo) {
  uint64_t d = 0;
  d |= static_cast<uint64_t>((saddr & 0x3ffff) >> 4);
  d |= static_cast<uint64_t>((lbo & 0x3ffff) >> 4) << 16;
  d |= static_cast<uint64_t>((sbo & 0x3ffff) >> 4) << 32;
  return d;  // layout type 0: no swizzle
}

// Pins accumulator registers in place around wgmma: ordinary instructions that read them must not
// be scheduled above the wgmma.wait_group that makes them valid.
template <int N>
__device__ __forceinline__ void fence_operands(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// Promotion of a fresh wgmma m64nN partial into the running fp32 accumulator: each thread's registers
// j*4 + 0/1 hold its first row, j*4 + 2/3 its second (8 columns apart per j), scaled by s0 / s1 in the
// first `split` column groups and by u0 / u1 in the rest (MoE stage 1: gate columns, then up columns,
// each with its weight rows' scale). Call after the wgmma that wrote t are waited for and
// fence_operands(t).
template <int R>
__device__ __forceinline__ void promote_rows_split(float (&acc)[R], const float (&t)[R], int split, float s0, float s1,
                                                   float u0, float u1) {
#pragma unroll
  for (int j = 0; j < R / 4; ++j) {
    const float a0 = j < split ? s0 : u0, a1 = j < split ? s1 : u1;
    acc[j * 4 + 0] = fmaf(t[j * 4 + 0], a0, acc[j * 4 + 0]);
    acc[j * 4 + 1] = fmaf(t[j * 4 + 1], a0, acc[j * 4 + 1]);
    acc[j * 4 + 2] = fmaf(t[j * 4 + 2], a1, acc[j * 4 + 2]);
    acc[j * 4 + 3] = fmaf(t[j * 4 + 3], a1, acc[j * 4 + 3]);
  }
}
// The same scale for every column group.
template <int R>
__device__ __forceinline__ void promote_rows(float (&acc)[R], const float (&t)[R], float s0, float s1) {
  promote_rows_split(acc, t, R / 4, s0, s1, s0, s1);
}

// A first k-block's partial made the accumulator in place (acc = acc * s per row), where the wgmma wrote it
// straight into acc: no zeroed accumulator to add it to.
template <int R>
__device__ __forceinline__ void scale_rows(float (&acc)[R], float s0, float s1) {
#pragma unroll
  for (int j = 0; j < R / 4; ++j) {
    acc[j * 4 + 0] *= s0;
    acc[j * 4 + 1] *= s0;
    acc[j * 4 + 2] *= s1;
    acc[j * 4 + 3] *= s1;
  }
}

// ---- flags between CTAs (sm_70+) ----
// A load of a flag other CTAs set, ordered before this thread's later loads (acquire, GPU scope).
__device__ __forceinline__ int ld_acquire_gpu(const int* p) {
  int v;
  asm volatile("ld.acquire.gpu.global.b32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// v, the same in every lane of the warp (a warp or warpgroup index computed from threadIdx), as lane 0's copy:
// the compiler then knows it is warp-uniform, so that shared-memory addresses and wgmma descriptors derived from it
// can live in uniform registers instead of being built per thread and moved over (R2UR) before every wgmma. Call it
// where the whole warp is converged.
__device__ __forceinline__ int warp_uniform(int v) { return __shfl_sync(0xffffffffu, v, 0); }
// v, through a move the compiler cannot see into: expressions built on it are neither folded nor hoisted out of the
// loop that defines it.
__device__ __forceinline__ int opaque(int v) {
  int r;
  asm volatile("mov.b32 %0, %1;\n" : "=r"(r) : "r"(v));
  return r;
}

template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

}  // namespace cktune::gpu::sm90

#endif  // CKTUNE_CUDA
