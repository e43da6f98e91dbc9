#include "cktune/core/log.hpp"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace cktune {

spdlog::logger& log() {
  static std::shared_ptr<spdlog::logger> logger = [] {
    auto l = spdlog::stderr_color_mt("cktune");
    l->set_pattern("%^[%l]%$ %v");
    l->set_level(spdlog::level::info);
    return l;
  }();
  return *logger;
}

void set_verbosity(int level) {
  using spdlog::level::level_enum;
  level_enum lv = level <= -1 ? level_enum::warn : level == 0 ? level_enum::info : level == 1 ? level_enum::debug
                                                                                                : level_enum::trace;
  log().set_level(lv);
}

}  // namespace cktune
