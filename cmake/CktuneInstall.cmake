# `cmake --install build [--prefix P]`: the binary, the model presets where presets_dir() looks for them
# (<exe dir>/../share/cktune/models), the man page and the shell completions.
include(GNUInstallDirs)
install(TARGETS cktune RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/configs/models/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cktune/models
  FILES_MATCHING PATTERN "*.json")
install(FILES ${PROJECT_SOURCE_DIR}/docs/man/cktune.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completions/cktune.bash
  DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME cktune)
install(FILES ${PROJECT_SOURCE_DIR}/scripts/completions/_cktune DESTINATION ${CMAKE_INSTALL_DATADIR}/zsh/site-functions)
