#pragma once
// `cktune capture`: logs and/or a model preset -> AITER untuned CSVs, one per family, plus a summary.
// The recipe: scan inputs -> add preset rows -> apply sweeps -> merge (--append) -> write -> report.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cktune/capture/log_scan.hpp"
#include "cktune/capture/presets.hpp"
#include "cktune/capture/untuned.hpp"
#include "cktune/formats/family.hpp"

namespace cktune::capture {

struct CaptureOptions {
  std::vector<std::string> inputs;  // log files, "-" = stdin; .gz decompressed
  std::string out_dir = ".";
  Family dump_family = Family::A8W8Blockscale;
  MSweep m_sweep = MSweep::Observed;  // for observed GEMM keys
  bool token_sweep = false;           // for observed MoE keys
  bool append = false;                // merge into existing untuned files instead of replacing them
  bool dry_run = false;               // report only, write nothing

  // Model preset (name or config.json path); empty = none.
  std::string model;
  std::string model_config;
  PlanOptions plan;
  // Families the preset's linear layers are written under (each gets the same keys: e.g. a8w8 and
  // a8w8_bpreshuffle, the plain and preshuffled layouts of one study).
  std::vector<Family> preset_gemm_families = {Family::A8W8Blockscale};
  std::optional<MSweep> preset_m_sweep;  // default: Pow2 (Observed has nothing to observe for a preset)
};

struct InputReport {
  std::string path;
  std::uint64_t bytes = 0;
  std::uint64_t records = 0;
};

struct FamilyReport {
  Family family;
  std::string file;             // written (or that would be written with --dry-run)
  size_t unique_keys = 0;
  size_t rows = 0;
  size_t rows_kept = 0;         // rows that were in the file before (--append)
  std::uint64_t lines = 0;      // log lines counted for this family
  std::vector<std::string> warnings;
};

struct CaptureReport {
  Observations observed;
  std::vector<InputReport> inputs;
  std::vector<FamilyReport> families;  // in kAllFamilies order, only families with rows
  std::optional<ModelPlan> model;
  std::vector<std::string> warnings;   // scan warnings + model warnings + unreachable rows
  bool dry_run = false;
};

// Does everything but printing. Throws cktune::Error on unreadable inputs or unwritable outputs.
CaptureReport run_capture(const CaptureOptions& options);

// --json: per family the file, unique keys, rows, and observed key -> size -> line count.
nlohmann::json report_json(const CaptureReport& report);

// The readable summary table.
std::string report_text(const CaptureReport& report);

}  // namespace cktune::capture
