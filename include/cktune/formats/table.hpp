#pragma once
// Typed AITER tables: a CsvTable plus what its header says (family, untuned/tuned, legacy schema) and the
// lookup key of every row. Original cells are kept untouched for writing; keys are canonicalised only for
// comparison (docs/formats.md).
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cktune/formats/csv.hpp"
#include "cktune/formats/family.hpp"

namespace cktune {

// What a header (and, as a hint, the file name) says about a table.
struct TableLayout {
  TableKind kind = TableKind::Untuned;     // tuned when the header has a `us` column
  std::optional<Family> family;            // nullopt: unknown layout, or ambiguous (see candidates)
  std::vector<Family> candidates;          // families whose schema fits the header best (>1: ambiguous)
  std::optional<Family> name_hint;         // family_from_file_name of the source
  std::vector<std::string> hint_missing;   // required columns of name_hint absent from the header
  bool has_gfx = false;                    // false: legacy table keyed by cu_num alone (gfx inferred)
  bool has_cu_num = false;
  std::vector<std::string> missing;        // columns of the family's current schema absent from the header
  std::vector<std::string> extra;          // header columns not in the family's current schema (e.g. _tag)
  bool family_from_provenance = false;     // read_table: the header was ambiguous, the tune's sidecar named it

  bool known() const { return family.has_value(); }
  bool ambiguous() const { return !family && candidates.size() > 1; }
  // "a8w8_blockscale", "a8w8_blockscale|a8w8_blockscale_bpreshuffle" when ambiguous, "unknown".
  std::string family_text() const;
};

// Detect the layout of `header`. When the file name names a family whose required columns (cu_num, key
// columns and us for tuned tables; key columns for untuned ones) are all present, that family wins; else
// the family whose schema differs least from the header. `override_family` forces a family (it must fit).
TableLayout detect_layout(const std::vector<std::string>& header, std::string_view file_name,
                          std::optional<Family> override_family = std::nullopt, std::uint64_t header_line = 1);

// How key cells are compared: integers parsed, booleans True/true/1 -> 1, text as is (already trimmed).
enum class KeyCellType { Integer, Boolean, Text };
KeyCellType key_cell_type(std::string_view column);

// The lookup key of one row: (gfx, cu_num) + the family's key columns, canonicalised.
struct TableKey {
  std::string gfx;                  // "" for untuned tables, or a legacy cu_num with no known arch
  std::int64_t cu_num = -1;         // -1 for untuned tables
  std::vector<std::string> values;  // canonical cells of the key columns, in the family's key order
  auto operator<=>(const TableKey&) const = default;
  // "gfx942,304,1,1280,8192" (gfx and cu_num left out when absent).
  std::string text() const;
};

struct Table {
  CsvTable csv;                           // original cells, for exact writing
  TableLayout layout;
  std::vector<std::string> key_names;     // key columns after gfx,cu_num (empty when the layout is unknown)
  std::vector<size_t> key_index;          // their column indexes in csv.header
  std::vector<TableKey> keys;             // one per row (empty when the layout is unknown)
  bool gfx_inferred = false;              // no gfx column: gfx came from cu_num (legacy_gfx_for_cu_num)

  const std::string& source() const { return csv.source; }
  bool has_keys() const { return !key_names.empty(); }
};

// Build a Table from parsed CSV: detect the layout (file name hint = csv.source) and extract every row's
// key. Throws InputError naming file:line:col and the value when a padded short row lacks a key cell or
// `us`, or a key cell is invalid (a non-numeric or
// negative integer, an empty cell, a bad boolean, a cu_num that is not a positive integer).
Table make_table(CsvTable csv, std::optional<Family> override_family = std::nullopt);

// read_csv + make_table. Short rows are read as pandas does (missing trailing cells empty, listed in
// csv.short_rows) as long as they hold every key cell and `us`; otherwise InputError "short row". Without
// `override_family`, a header that several families fit takes the family of the provenance sidecar that `tune` or
// `merge` wrote beside the file (PATH.provenance.json), when it is one of them (layout.family_from_provenance).
Table read_table(const std::string& path, std::optional<Family> override_family = std::nullopt);

// Canonical form of one key cell; nullopt when invalid for its type.
std::optional<std::string> canonical_key_cell(KeyCellType type, std::string_view cell);

// A positive or zero integer cell; nullopt when the cell is not one.
std::optional<std::int64_t> parse_uint_cell(std::string_view cell);

// Largest value of a size key cell (M, N, K, B, token, model_dim, inter_dim, expert, topk): the kernels
// index with 32-bit integers. cu_num must lie in 1..kMaxCuNum.
inline constexpr std::int64_t kMaxKeySize = 2147483647;
inline constexpr std::int64_t kMaxCuNum = 65535;

// The one check of key cells against `family`'s ranges, for every reader of tables and shape lists
// (merge, merge --check, make_table/read_table, capture --append, tune's problem loading). For every row:
//  - sizes (M, N, K, B, token, model_dim, inter_dim, expert, topk): whole numbers in 1..kMaxKeySize;
//  - booleans (use_g1u1, doweight_stage1): 1/0, True/False, true/false, TRUE/FALSE;
//  - dtype cells (dtype, q_dtype_a, q_dtype_w): canonical `torch.<name>`; act_type `ActivationType.<Name>`;
//    q_type `QuantType.<name>` (names of letters, digits and '_');
//  - when the header has them: gfx a non-empty arch name of letters, digits and '_' (gfx942, sm_90, cpu; a
//    `:feature` suffix allowed), cu_num a whole number in 1..kMaxCuNum.
// Throws InputError at the first bad cell, naming csv.source, line and column, the value and what is
// expected; a key column missing from the header is an InputError naming the header line. Linear in the
// size of the table (columns are looked up once).
void validate_key_cells(const CsvTable& csv, Family family);

}  // namespace cktune
