# Header-only dependencies (Eigen, nlohmann_json, CLI11). Their CMake packages are
# used where installed (Debian); otherwise, e.g. on a GPU machine with just CMake, CUDA and
# LibTorch, point CMAKE_INCLUDE_PATH at a folder holding their headers.
function(pcl_dise_header_only_target target header)
  if(TARGET ${target})
    return()
  endif()
  string(MAKE_C_IDENTIFIER "${target}_INCLUDE_DIR" var)
  find_path(${var} ${header} PATH_SUFFIXES ${ARGN})
  if(NOT ${var})
    message(FATAL_ERROR "${header} not found: install its package or add its folder to CMAKE_INCLUDE_PATH")
  endif()
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${${var}}")
endfunction()

find_package(Eigen3 NO_MODULE QUIET)
pcl_dise_header_only_target(Eigen3::Eigen Eigen/Core eigen3)
find_package(nlohmann_json QUIET)
pcl_dise_header_only_target(nlohmann_json::nlohmann_json nlohmann/json.hpp)
find_package(CLI11 QUIET)
pcl_dise_header_only_target(CLI11::CLI11 CLI/CLI.hpp)
