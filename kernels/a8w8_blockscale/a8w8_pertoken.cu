// The per-token / per-channel instance tables: a8w8 (Scaling::PerToken) and a8w8_bpreshuffle
// (Scaling::PerTokenPreshuffledW), and their int8 twins (warp MMA only). Same kernel bodies and tiles as the a8w8_blockscale table
// (a8w8_blockscale.cu); the scales multiply each finished sum once. The preshuffled weights reach the
// warp-MMA kernels by cp.async in 16-byte pieces (the layout keeps them whole) and the wgmma kernels
// through a 3-D TMA map that un-shuffles them.
#include "launch.cuh"

namespace cktune::kernels::a8w8_blockscale::table {
namespace {

// Order is the id: append only once tuned tables exist (ids and names are stored in them).
namespace pertoken {
constexpr Scaling SC = Scaling::PerToken;
const std::array kEntries = {
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 8),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 4),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 2),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 1),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 2),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 1),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 2),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 1),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 2),
    CKTUNE_WGMMA(128, 128, 4, 1),
    CKTUNE_WGMMA(128, 128, 4, 2),
    CKTUNE_WGMMA(128, 128, 5, 1),
    CKTUNE_WGMMA(128, 64, 6, 1),
    CKTUNE_WGMMA(128, 64, 6, 2),
    CKTUNE_WGMMA(64, 128, 6, 1),
    CKTUNE_WGMMA(64, 128, 6, 2),
    CKTUNE_WGMMA(64, 128, 6, 4),
    CKTUNE_WGMMA(64, 64, 8, 1),
    CKTUNE_WGMMA(64, 64, 8, 2),
    CKTUNE_WGMMA(64, 64, 8, 4),
    CKTUNE_WGMMA_P(128, 128, 4),
    CKTUNE_WGMMA_P(128, 128, 5),
    CKTUNE_WGMMA_P(128, 64, 6),
    CKTUNE_WGMMA_P(64, 128, 6),
    CKTUNE_WGMMA_P(64, 64, 8),
    // Per-token only: N tiles of 192 (the block-scaled table needs BN | 128, one weight scale per tile),
    // and the persistent kernels with two partial tiles in flight.
    CKTUNE_WGMMA(128, 192, 4, 1),
    CKTUNE_WGMMA_P(128, 192, 4),
    CKTUNE_WGMMA_P(64, 192, 6),
    CKTUNE_WGMMA_P_DB(128, 128, 4),
    CKTUNE_WGMMA_P_DB(128, 128, 5),
    CKTUNE_WGMMA_P_DB(128, 64, 6),
    CKTUNE_WGMMA_P_DB(64, 128, 6),
    // Grid kernels with k-blocks in pairs (two partials in flight, nothing across the loop edge).
    CKTUNE_WGMMA_DB(128, 128, 4, 1),
    CKTUNE_WGMMA_DB(64, 128, 6, 1),
};
}  // namespace pertoken

namespace preshuffled {
constexpr Scaling SC = Scaling::PerTokenPreshuffledW;
const std::array kEntries = {
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 8),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 4),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 2),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 1),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 2),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 1),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 2),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 1),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 2),
    // wgmma through the 3-D TMA map that un-shuffles the weights (wgmma.cuh).
    CKTUNE_WGMMA(128, 128, 4, 1),
    CKTUNE_WGMMA(128, 128, 4, 2),
    CKTUNE_WGMMA(128, 128, 5, 1),
    CKTUNE_WGMMA(128, 64, 6, 1),
    CKTUNE_WGMMA(128, 64, 6, 2),
    CKTUNE_WGMMA(64, 128, 6, 1),
    CKTUNE_WGMMA(64, 128, 6, 2),
    CKTUNE_WGMMA(64, 128, 6, 4),
    CKTUNE_WGMMA(64, 64, 8, 1),
    CKTUNE_WGMMA(64, 64, 8, 2),
    CKTUNE_WGMMA(64, 64, 8, 4),
    CKTUNE_WGMMA_P(128, 128, 4),
    CKTUNE_WGMMA_P(128, 128, 5),
    CKTUNE_WGMMA_P(128, 64, 6),
    CKTUNE_WGMMA_P(64, 128, 6),
    CKTUNE_WGMMA_P(64, 64, 8),
    CKTUNE_WGMMA(128, 192, 4, 1),
    CKTUNE_WGMMA_P(128, 192, 4),
    CKTUNE_WGMMA_P(64, 192, 6),
    CKTUNE_WGMMA_P_DB(128, 128, 4),
    CKTUNE_WGMMA_P_DB(128, 128, 5),
    CKTUNE_WGMMA_P_DB(128, 64, 6),
    CKTUNE_WGMMA_P_DB(64, 128, 6),
    // Grid kernels with k-blocks in pairs (two partials in flight, nothing across the loop edge).
    CKTUNE_WGMMA_DB(128, 128, 4, 1),
    CKTUNE_WGMMA_DB(64, 128, 6, 1),
};
}  // namespace preshuffled

// int8 (AITER's torch.int8 rows): the warp-MMA instances, on mma.sync s8 with exact s32 block sums.
namespace int8 {
constexpr Scaling SC = Scaling::PerTokenI8;
const std::array kEntries = {
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 8),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 4),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 2),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 1),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 2),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 1),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 2),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 1),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 2),
};
}  // namespace int8

namespace int8_preshuffled {
constexpr Scaling SC = Scaling::PerTokenI8PreshuffledW;
const std::array kEntries = {
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(8, 64, 4, 1, 1, 4, 2, 8),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 4),
    CKTUNE_MMA(8, 32, 2, 1, 2, 3, 4, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 1, 16),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 2),
    CKTUNE_MMA(16, 64, 4, 1, 1, 4, 2, 4),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 2),
    CKTUNE_MMA(16, 128, 8, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 1),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 4),
    CKTUNE_MMA(32, 64, 4, 1, 1, 4, 1, 8),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 1),
    CKTUNE_MMA(32, 128, 4, 1, 2, 4, 1, 2),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 1),
    CKTUNE_MMA(64, 128, 4, 2, 1, 4, 1, 2),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 1),
    CKTUNE_MMA(128, 128, 2, 4, 1, 3, 1, 2),
};
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
