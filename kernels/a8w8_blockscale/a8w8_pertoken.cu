// The per-token / per-channel instance tables: a8w8 (Scaling::PerToken) and a8w8_bpreshuffle
// (Scaling::PerTokenPreshuffledW), and their int8 twins (warp MMA only). Same kernel bodies and rows
// (launch.cuh) as the a8w8_blockscale table; the scales multiply each finished sum once. The preshuffled weights reach the
// warp-MMA kernels by cp.async in 16-byte pieces (the layout keeps them whole) and the wgmma kernels
// through a 3-D TMA map that un-shuffles them.
#include "launch.cuh"

namespace cktune::kernels::a8w8_blockscale::table {
namespace {

// Order is the id: append only once tuned tables exist (ids and names are stored in them). The plain and
// preshuffled tables share one list, so a kernel has the same id in both; each namespace's SC picks the
// scaling the rows instantiate. The CUDA-core decode rows read whole rows of W and follow the shared list in the
// row-major tables only (the preshuffled layout scatters a row's 16-byte pieces 256 bytes apart).
#define CKTUNE_PERTOKEN_FP8_ROWS                                                                           \
  CKTUNE_MMA_ROWS, CKTUNE_WGMMA_ROWS, CKTUNE_WGMMA_P_ROWS, CKTUNE_WGMMA_N192_ROWS, CKTUNE_WGMMA_P_DB_ROWS, \
      CKTUNE_WGMMA_DB_ROWS, CKTUNE_MMA_LATENCY_ROWS, CKTUNE_WGMMA_K_ROWS, CKTUNE_WGMMA_N96_ROWS,  \
      CKTUNE_WGMMA_SWAP_ROWS, CKTUNE_WGMMA_FAST_ROWS, CKTUNE_MMA_DIRECT_ROWS
#define CKTUNE_PERTOKEN_INT8_ROWS CKTUNE_MMA_ROWS, CKTUNE_MMA_LATENCY_ROWS, CKTUNE_MMA_DIRECT_ROWS

namespace pertoken {
constexpr Scaling SC = Scaling::PerToken;
const std::array kEntries = {CKTUNE_PERTOKEN_FP8_ROWS, CKTUNE_GEMV_ROWS};
}  // namespace pertoken

// The same kernels on preshuffled weights (the wgmma ones through the 3-D TMA map of wgmma.cuh).
namespace preshuffled {
constexpr Scaling SC = Scaling::PerTokenPreshuffledW;
const std::array kEntries = {CKTUNE_PERTOKEN_FP8_ROWS};
}  // namespace preshuffled

// int8 (AITER's torch.int8 rows): the warp-MMA instances, on mma.sync s8 with exact s32 block sums.
namespace int8 {
constexpr Scaling SC = Scaling::PerTokenI8;
const std::array kEntries = {CKTUNE_PERTOKEN_INT8_ROWS, CKTUNE_GEMV_ROWS_OF(false)};
}  // namespace int8

namespace int8_preshuffled {
constexpr Scaling SC = Scaling::PerTokenI8PreshuffledW;
const std::array kEntries = {CKTUNE_PERTOKEN_INT8_ROWS};
}  // namespace int8_preshuffled

const Table<pertoken::kEntries.size()>& pertoken_table() {
  static const Table<pertoken::kEntries.size()> t(pertoken::kEntries);
  return t;
}
const Table<preshuffled::kEntries.size()>& preshuffled_table() {
  static const Table<preshuffled::kEntries.size()> t(preshuffled::kEntries);
  return t;
}

const Table<int8::kEntries.size()>& int8_table() {
  static const Table<int8::kEntries.size()> t(int8::kEntries);
  return t;
}
const Table<int8_preshuffled::kEntries.size()>& int8_preshuffled_table() {
  static const Table<int8_preshuffled::kEntries.size()> t(int8_preshuffled::kEntries);
  return t;
}

}  // namespace

std::span<const InstanceParams> pertoken_instances(Scaling s) {
  switch (s) {
    case Scaling::PerTokenPreshuffledW: return preshuffled_table().params;
    case Scaling::PerTokenI8: return int8_table().params;
    case Scaling::PerTokenI8PreshuffledW: return int8_preshuffled_table().params;
    default: return pertoken_table().params;
  }
}

LaunchFn pertoken_launch(Scaling s, int id) {
  const auto i = static_cast<size_t>(id);
  switch (s) {
    case Scaling::PerTokenPreshuffledW: return preshuffled_table().launch[i];
    case Scaling::PerTokenI8: return int8_table().launch[i];
    case Scaling::PerTokenI8PreshuffledW: return int8_preshuffled_table().launch[i];
    default: return pertoken_table().launch[i];
  }
}

}  // namespace cktune::kernels::a8w8_blockscale::table
