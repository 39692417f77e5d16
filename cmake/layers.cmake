# The modules' layers, in dependency order: each module and the modules whose headers it may
# include (its own and core's always). Dependencies point one way only: a module may use the
# modules before it in this list that it names, never one after it. docs/architecture.md draws the
# same picture in words; change both together.
set(VRAMSCOPE_LAYERS
  "core:"
  "model:core"
  "job:core model"
  "import:core model job"
  "alloc:core"
  "schedule:core model job"
  "predict:core model job alloc schedule"
  "observe:core"
  "watch:core observe"
  "trace:core observe watch"
  "doctor:core model job alloc schedule predict observe"
  "whatif:core model job import alloc schedule predict"
  "report:core model job import alloc schedule predict observe watch trace doctor whatif"
  "cli:core model job import alloc schedule predict observe watch trace doctor whatif report")

# vramscope_layer_modules(OUT): the modules, in order.
function(vramscope_layer_modules out)
  set(modules "")
  foreach(layer IN LISTS VRAMSCOPE_LAYERS)
    string(REGEX REPLACE ":.*" "" module "${layer}")
    list(APPEND modules ${module})
  endforeach()
  set(${out} ${modules} PARENT_SCOPE)
endfunction()

# vramscope_layer_uses(MODULE OUT): the modules MODULE may use, itself included.
function(vramscope_layer_uses module out)
  foreach(layer IN LISTS VRAMSCOPE_LAYERS)
    if(layer MATCHES "^${module}:(.*)$")
      string(REPLACE " " ";" uses "${CMAKE_MATCH_1}")
      list(APPEND uses ${module} core)
      set(${out} ${uses} PARENT_SCOPE)
      return()
    endif()
  endforeach()
  message(FATAL_ERROR "cmake/layers.cmake: module '${module}' has no line in VRAMSCOPE_LAYERS")
endfunction()

# vramscope_check_includes(ROOT OUT): every #include in src/<module>/ and
# include/vramscope/<module>/ that names a header of a module its module may not use, one entry a
# line ("src/job/x.cpp: #include <vramscope/predict/y.hpp>: job may not use predict"); empty when
# the layering holds. A folder under src/ with no line in VRAMSCOPE_LAYERS is an entry too.
function(vramscope_check_includes root out)
  vramscope_layer_modules(modules)
  set(problems "")
  file(GLOB folders LIST_DIRECTORIES true RELATIVE "${root}/src" "${root}/src/*")
  foreach(folder IN LISTS folders)
    if(IS_DIRECTORY "${root}/src/${folder}" AND NOT folder IN_LIST modules)
      list(APPEND problems
           "src/${folder}/: a module with no line in cmake/layers.cmake (say what it may use)")
    endif()
  endforeach()
  foreach(module IN LISTS modules)
    vramscope_layer_uses(${module} uses)
    file(GLOB_RECURSE sources RELATIVE "${root}"
         "${root}/src/${module}/*.cpp" "${root}/src/${module}/*.hpp" "${root}/src/${module}/*.h"
         "${root}/include/vramscope/${module}/*.hpp")
    foreach(source IN LISTS sources)
      file(STRINGS "${root}/${source}" includes REGEX "^[ \t]*#[ \t]*include[ \t]*[<\"]")
      foreach(line IN LISTS includes)
        if(line MATCHES "#[ \t]*include[ \t]*[<\"](vramscope/)?([a-z_]+)/")
          set(used "${CMAKE_MATCH_2}")
          if(used IN_LIST modules AND NOT used IN_LIST uses)
            string(STRIP "${line}" line)
            list(APPEND problems "${source}: ${line}: ${module} may not use ${used}")
          endif()
        endif()
      endforeach()
    endforeach()
  endforeach()
  set(${out} ${problems} PARENT_SCOPE)
endfunction()

# vramscope_check_layers(): at configure time, the includes as above and each module library's
# links to other modules (DEPS in its CMakeLists.txt); a break of the layering stops the
# configuration with the list of places.
function(vramscope_check_layers)
  vramscope_check_includes("${PROJECT_SOURCE_DIR}" problems)
  vramscope_layer_modules(modules)
  foreach(module IN LISTS modules)
    if(NOT TARGET vramscope_${module})
      continue()
    endif()
    vramscope_layer_uses(${module} uses)
    get_target_property(links vramscope_${module} LINK_LIBRARIES)
    foreach(link IN LISTS links)
      if(link MATCHES "^vramscope::([a-z_]+)$")
        set(used "${CMAKE_MATCH_1}")
        if(used IN_LIST modules AND NOT used IN_LIST uses)
          list(APPEND problems
               "src/${module}/CMakeLists.txt: DEPS ${link}: ${module} may not use ${used}")
        endif()
      endif()
    endforeach()
  endforeach()
  if(problems)
    list(JOIN problems "\n  " text)
    message(FATAL_ERROR "the modules' layers (cmake/layers.cmake, docs/architecture.md) are "
                        "broken:\n  ${text}")
  endif()
endfunction()
