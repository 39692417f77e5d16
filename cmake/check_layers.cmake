# The layering check as a script, for CTest (the test `layers`) and by hand:
#   cmake -DROOT=/path/to/vramscope -P cmake/check_layers.cmake
# Fails, naming each file and include, when a module includes a header of a module it may not
# use (cmake/layers.cmake). The configuration runs the same check and also checks the DEPS.
cmake_minimum_required(VERSION 3.25)
if(NOT ROOT)
  get_filename_component(ROOT "${CMAKE_CURRENT_LIST_DIR}/.." ABSOLUTE)
endif()
include("${CMAKE_CURRENT_LIST_DIR}/layers.cmake")
vramscope_check_includes("${ROOT}" problems)
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "the modules' layers (cmake/layers.cmake, docs/architecture.md) are "
                      "broken:\n  ${text}")
endif()
list(LENGTH VRAMSCOPE_LAYERS count)
message(STATUS "layers: the includes of ${count} modules keep to cmake/layers.cmake")
