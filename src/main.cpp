// cktune: the binary is a thin shell over libcktune; everything happens in cli::run.
#include "cli/app.hpp"

int main(int argc, char** argv) { return cktune::cli::run(argc, argv); }
