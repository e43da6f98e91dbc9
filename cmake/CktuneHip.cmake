# The HIP configuration (CKTUNE_GPU=hip): clang compiles the kernels as HIP, the C++ compiler the rest
# (the GPU host files too, with the HIP runtime headers, as in the CUDA configuration).
#
# CMake's own HIP language (3.25, Debian 12) expects ROCm's /opt/rocm layout: it looks for
# <root>/lib/cmake/hip-lang, while Debian's libamdhip64-dev ships it under /usr/lib/<multiarch>/cmake,
# and its test compile adds `-isystem /usr/include`, which breaks libstdc++'s #include_next. So clang is
# driven directly, one custom command per kernel file, with the target's include directories and definitions;
# the objects carry their device code (one code object per architecture, linked per file: no
# relocatable device code) and link into cktune_core like any other object. Works the same against a
# ROCm install (/opt/rocm/llvm/bin/clang++).
#
# Cache variables:
#   CKTUNE_HIP_CLANG           clang++ with HIP support (ROCm's, else Debian's clang-19/20/18)
#   CKTUNE_HIP_DEVICE_LIBS     folder of the ROCm device libraries (ockl.bc, ocml.bc, oclc_isa_version_*.bc)
#   CKTUNE_HIP_ARCHITECTURES   device code targets; empty = those of gfx942, gfx950, gfx90a whose device
#                              library exists (Debian 12's rocm-device-libs 5.2 stops at gfx940: gfx90a)
#   CKTUNE_HIP_RUNTIME_LIBRARY libamdhip64

set(CKTUNE_HIP_CLANG "" CACHE FILEPATH "clang++ that compiles HIP (empty: ROCm's, else Debian's clang-19)")
set(CKTUNE_HIP_DEVICE_LIBS "" CACHE PATH "ROCm device library folder (empty: found)")
set(CKTUNE_HIP_ARCHITECTURES "" CACHE STRING "AMD device code targets, e.g. gfx942;gfx950 (empty: every one of gfx942, gfx950, gfx90a the device libraries support)")

if(NOT CKTUNE_HIP_CLANG)
  # The clang in an llvm bin folder, not /usr/bin/clang++-19: it finds clang-offload-bundler beside itself.
  find_program(_cktune_hip_clang NAMES clang++
    PATHS /opt/rocm/llvm/bin /usr/lib/llvm-19/bin /usr/lib/llvm-20/bin /usr/lib/llvm-18/bin NO_DEFAULT_PATH)
  if(NOT _cktune_hip_clang)
    message(FATAL_ERROR "CKTUNE_GPU=hip: no clang++ with HIP support in /opt/rocm/llvm/bin or /usr/lib/llvm-{19,20,18}/bin.\n"
      "On Debian 12: apt-get install clang-19 clang-tools-19 lld-19 libamdhip64-dev rocm-device-libs librocprim-dev\n"
      "or pass -DCKTUNE_HIP_CLANG=/path/to/clang++")
  endif()
  set(CKTUNE_HIP_CLANG ${_cktune_hip_clang} CACHE FILEPATH "" FORCE)
endif()
get_filename_component(_cktune_clang_dir ${CKTUNE_HIP_CLANG} DIRECTORY)
if(NOT EXISTS ${_cktune_clang_dir}/clang-offload-bundler)
  message(FATAL_ERROR "CKTUNE_GPU=hip: ${_cktune_clang_dir} has no clang-offload-bundler, which clang needs to "
    "put device code into an object (Debian: apt-get install clang-tools-19)")
endif()

if(NOT CKTUNE_HIP_DEVICE_LIBS)
  find_path(_cktune_hip_devlibs ockl.bc
    PATHS /opt/rocm/amdgcn/bitcode /opt/rocm/lib/llvm/lib/clang/amdgcn/bitcode
          /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/amdgcn/bitcode /usr/lib/amdgcn/bitcode NO_DEFAULT_PATH)
  if(NOT _cktune_hip_devlibs)
    message(FATAL_ERROR "CKTUNE_GPU=hip: no ROCm device libraries (ockl.bc) found. Debian: apt-get install "
      "rocm-device-libs; or pass -DCKTUNE_HIP_DEVICE_LIBS=/path/to/amdgcn/bitcode")
  endif()
  set(CKTUNE_HIP_DEVICE_LIBS ${_cktune_hip_devlibs} CACHE PATH "" FORCE)
endif()

# gfxNNN -> the suffix of its oclc_isa_version_NNN.bc
function(_cktune_isa_file arch out)
  string(REGEX REPLACE "^gfx" "" _n ${arch})
  set(${out} ${CKTUNE_HIP_DEVICE_LIBS}/oclc_isa_version_${_n}.bc PARENT_SCOPE)
endfunction()

set(_cktune_hip_archs ${CKTUNE_HIP_ARCHITECTURES})
set(_cktune_hip_left_out "")
if(NOT _cktune_hip_archs)
  foreach(a gfx942 gfx950 gfx90a)
    _cktune_isa_file(${a} _f)
    if(EXISTS ${_f})
      list(APPEND _cktune_hip_archs ${a})
    else()
      list(APPEND _cktune_hip_left_out ${a})
    endif()
  endforeach()
  if(NOT _cktune_hip_archs)
    message(FATAL_ERROR "CKTUNE_GPU=hip: the device libraries in ${CKTUNE_HIP_DEVICE_LIBS} support none of "
      "gfx942, gfx950, gfx90a; pass -DCKTUNE_HIP_ARCHITECTURES=...")
  endif()
else()
  foreach(a ${_cktune_hip_archs})
    _cktune_isa_file(${a} _f)
    if(NOT EXISTS ${_f})
      message(FATAL_ERROR "CKTUNE_HIP_ARCHITECTURES names ${a}, but ${CKTUNE_HIP_DEVICE_LIBS} has no "
        "oclc_isa_version file for it, so its device code cannot be linked (Debian 12's rocm-device-libs "
        "5.2 stops at gfx940; gfx942/gfx950 need ROCm >= 6). scripts/amd_compile_check.sh compiles gfx942 "
        "device code without linking.")
    endif()
  endforeach()
endif()
# The architectures' list, as the CUDA configuration's CMAKE_CUDA_ARCHITECTURES, for src/gpu.
set(CKTUNE_HIP_ARCHITECTURES ${_cktune_hip_archs})
if(_cktune_hip_left_out)
  message(STATUS "cktune HIP: device code for ${_cktune_hip_archs}; ${_cktune_hip_left_out} left out "
    "(no oclc_isa_version file in ${CKTUNE_HIP_DEVICE_LIBS}; scripts/amd_compile_check.sh compiles gfx942)")
else()
  message(STATUS "cktune HIP: device code for ${_cktune_hip_archs}")
endif()

# The runtime headers for the host files (compiled by the C++ compiler): nothing to add where they sit
# in /usr/include (Debian).
find_path(CKTUNE_HIP_INCLUDE_DIR hip/hip_runtime.h PATHS /opt/rocm/include)
if(NOT CKTUNE_HIP_INCLUDE_DIR)
  message(FATAL_ERROR "CKTUNE_GPU=hip: hip/hip_runtime.h not found (Debian: apt-get install libamdhip64-dev)")
endif()
set(CKTUNE_HIP_INCLUDE_DIRS "")
if(NOT CKTUNE_HIP_INCLUDE_DIR MATCHES "^/usr/include/?$")
  set(CKTUNE_HIP_INCLUDE_DIRS ${CKTUNE_HIP_INCLUDE_DIR})
endif()
find_library(CKTUNE_HIP_RUNTIME_LIBRARY amdhip64 PATHS /opt/rocm/lib)
if(NOT CKTUNE_HIP_RUNTIME_LIBRARY)
  message(FATAL_ERROR "CKTUNE_GPU=hip: libamdhip64 not found (Debian: apt-get install libamdhip64-dev)")
endif()

set(_cktune_hip_offload --rocm-device-lib-path=${CKTUNE_HIP_DEVICE_LIBS})
foreach(a ${_cktune_hip_archs})
  list(APPEND _cktune_hip_offload --offload-arch=${a})
endforeach()

# cktune_hip_kernels(<target> "<definitions>" <source>...)
# Compiles each kernel source with clang as HIP (host code, and device code for every architecture) and
# adds the object to <target>. Include directories and definitions are the target's own (transitively,
# as for its C++ files) plus <definitions>; header dependencies come from clang's depfile.
function(cktune_hip_kernels target defs)
  set(_defs "")
  foreach(d ${defs})
    list(APPEND _defs -D${d})
  endforeach()
  # Without /usr/include, which clang searches anyway: naming it again breaks libstdc++'s #include_next.
  set(_incs "$<FILTER:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>,EXCLUDE,^/usr/include/?$>")
  set(_tdefs "$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>")
  # rocPRIM 5.3 writes `template f` without an argument list, which clang 19 diagnoses.
  set(_flags -x hip -std=c++20 -O3 $<$<NOT:$<CONFIG:Debug>>:-DNDEBUG> -fno-gpu-rdc -Wno-unused-command-line-argument
    -Wno-missing-template-arg-list-after-template-kw ${_cktune_hip_offload})
  foreach(src ${ARGN})
    file(RELATIVE_PATH _rel ${PROJECT_SOURCE_DIR} ${src})
    set(_obj ${CMAKE_BINARY_DIR}/hip/${target}/${_rel}.o)
    get_filename_component(_dir ${_obj} DIRECTORY)
    file(MAKE_DIRECTORY ${_dir})
    add_custom_command(OUTPUT ${_obj}
      COMMAND ${CKTUNE_HIP_CLANG} ${_flags}
        "$<$<BOOL:${_incs}>:-I$<JOIN:${_incs},;-I>>" "$<$<BOOL:${_tdefs}>:-D$<JOIN:${_tdefs},;-D>>" ${_defs}
        -MD -MF ${_obj}.d -c ${src} -o ${_obj}
      DEPENDS ${src} DEPFILE ${_obj}.d
      COMMENT "Building HIP object ${_rel}"
      COMMAND_EXPAND_LISTS VERBATIM)
    target_sources(${target} PRIVATE ${_obj})
    list(APPEND _objs ${_obj})
  endforeach()
  # The rules belong to this directory; a target here that needs the objects makes them buildable for
  # <target>, which may live in another directory (src/gpu adds to cktune_core of src/).
  add_custom_target(${target}_hip_kernels DEPENDS ${_objs})
  add_dependencies(${target} ${target}_hip_kernels)
endfunction()
