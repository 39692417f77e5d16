# One place for the warning flags of every vramscope target.
function(vramscope_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wconversion -Wsign-conversion)
  if(VRAMSCOPE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
  target_compile_features(${target} PUBLIC cxx_std_20)
endfunction()

# vramscope_module(NAME SOURCES... DEPS ...): a static library vramscope_NAME, alias vramscope::NAME.
function(vramscope_module name)
  cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
  add_library(vramscope_${name} STATIC ${M_SOURCES})
  add_library(vramscope::${name} ALIAS vramscope_${name})
  target_include_directories(vramscope_${name}
    PUBLIC ${PROJECT_SOURCE_DIR}/include
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(vramscope_${name} PUBLIC ${M_DEPS})
  vramscope_target_warnings(vramscope_${name})
  # A module compiles as one translation unit (VRAMSCOPE_UNITY_BUILD): the heavy headers
  # (nlohmann/json, fmt, yaml-cpp, CLI11) are parsed once per module instead of once per file,
  # which is most of a first build's time. Generated sources stay out of the batch.
  if(VRAMSCOPE_UNITY_BUILD)
    set_target_properties(vramscope_${name} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
    foreach(source IN LISTS M_SOURCES)
      if(source MATCHES "^${CMAKE_BINARY_DIR}")
        set_source_files_properties(${source} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
      endif()
    endforeach()
  endif()
endfunction()

# vramscope_test(NAME SOURCES... DEPS ...): one GoogleTest executable per module.
function(vramscope_test name)
  cmake_parse_arguments(T "" "" "SOURCES;DEPS" ${ARGN})
  add_executable(vramscope_${name}_tests ${T_SOURCES})
  target_include_directories(vramscope_${name}_tests PRIVATE ${PROJECT_SOURCE_DIR}/tests ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(vramscope_${name}_tests PRIVATE ${T_DEPS} GTest::gtest GTest::gtest_main GTest::gmock)
  target_compile_definitions(vramscope_${name}_tests PRIVATE
    VRAMSCOPE_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
  vramscope_target_warnings(vramscope_${name}_tests)
  gtest_discover_tests(vramscope_${name}_tests DISCOVERY_TIMEOUT 60)
endfunction()
