# Resolve CKTUNE_GPU=auto|cuda|hip|off into CKTUNE_GPU_RESOLVED and enable the GPU language.
# auto picks cuda when nvcc is found; hip must be asked for (clang with HIP support: Debian's clang-19
# and libamdhip64-dev, or a ROCm install).
# src/gpu/CMakeLists.txt adds the GPU sources and definitions; docs/arch/gpu.md explains the modes.
set(CKTUNE_GPU_RESOLVED off)

# nvcc is not on PATH on our build machines; the toolkit sits in /usr/local/cuda.
if(NOT CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS /usr/local/cuda/bin/nvcc)
  set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
endif()

if(CKTUNE_GPU STREQUAL "auto")
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(CKTUNE_GPU_RESOLVED cuda)
  endif()
elseif(CKTUNE_GPU STREQUAL "cuda" OR CKTUNE_GPU STREQUAL "hip" OR CKTUNE_GPU STREQUAL "off")
  set(CKTUNE_GPU_RESOLVED ${CKTUNE_GPU})
else()
  message(FATAL_ERROR "CKTUNE_GPU must be auto, cuda, hip or off (got '${CKTUNE_GPU}')")
endif()

if(CKTUNE_GPU_RESOLVED STREQUAL "cuda")
  # Hopper: sm_90a is needed for wgmma / setmaxnreg; the binary carries SASS only (no JIT at start).
  if(NOT CMAKE_CUDA_ARCHITECTURES)
    set(CMAKE_CUDA_ARCHITECTURES 90a)
  endif()
  # The host side of .cu files is compiled by the same g++ as the rest, so the ABI matches.
  if(NOT CMAKE_CUDA_HOST_COMPILER)
    set(CMAKE_CUDA_HOST_COMPILER ${CMAKE_CXX_COMPILER})
  endif()
  # cudart is linked statically (CUDA::cudart_static) so the binary runs where only the driver is.
  set(CMAKE_CUDA_RUNTIME_LIBRARY Static)
  enable_language(CUDA)
  # CMake 3.25 (Debian 12) does not know that nvcc >= 12 speaks C++20 and refuses cxx_std_20 on a
  # target with .cu files; teach it the flag (newer CMake sets exactly this itself).
  if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  set(CMAKE_CUDA_EXTENSIONS OFF)
  find_package(CUDAToolkit REQUIRED)
  if(CUDAToolkit_VERSION VERSION_LESS 12.3)
    message(WARNING "CUDA ${CUDAToolkit_VERSION}: the kernels are written for CUDA >= 12.3 (sm_90a, fp8)")
  endif()
elseif(CKTUNE_GPU_RESOLVED STREQUAL "hip")
  # Not CMake's HIP language: CMake 3.25 cannot find Debian's multiarch ROCm layout. clang is driven
  # directly for the GPU files (cmake/CktuneHip.cmake); the rest stays with the C++ compiler.
  include(CktuneHip)
endif()
message(STATUS "cktune GPU backend: ${CKTUNE_GPU_RESOLVED}")
