# One static library per folder, and the record of which folders each may use.
#
# rfl_layer(<folder> SOURCES <files>... [DEPENDS <folders>...] [LINK <targets>...])
#   Makes the static library rfl_<folder> from SOURCES, linking rfl_<dep> for every DEPENDS
#   folder and the LINK targets (all PUBLIC), with the project's warnings. Include paths are the
#   repository root (kernels/...) and src/ (core/..., result/..., ...), as everywhere.
# rfl_record_layer(<folder> DEPENDS <folders>...)
#   Records the dependencies of a folder that is not a library of its own (app/).
# rfl_write_layers(<file>)
#   Writes one line per folder, "<folder>: <dep> <dep> ...", in declaration order, for
#   scripts/check_layering.py (the CPU test `layering`).

function(rfl_record_layer folder)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "DEPENDS")
  list(JOIN L_DEPENDS " " deps)
  set_property(GLOBAL APPEND PROPERTY RFL_LAYER_LINES "${folder}: ${deps}")
endfunction()

function(rfl_layer folder)
  cmake_parse_arguments(PARSE_ARGV 1 L "" "" "SOURCES;DEPENDS;LINK")
  set(target rfl_${folder})
  add_library(${target} STATIC ${L_SOURCES})
  target_include_directories(${target} PUBLIC ${CMAKE_SOURCE_DIR}/src ${CMAKE_SOURCE_DIR})
  foreach(dep IN LISTS L_DEPENDS)
    target_link_libraries(${target} PUBLIC rfl_${dep})
  endforeach()
  target_link_libraries(${target} PUBLIC ${L_LINK})
  target_compile_options(${target} PRIVATE ${RFL_WARNINGS})
  rfl_record_layer(${folder} DEPENDS ${L_DEPENDS})
endfunction()

function(rfl_write_layers file)
  get_property(lines GLOBAL PROPERTY RFL_LAYER_LINES)
  list(JOIN lines "\n" content)
  file(WRITE ${file} "${content}\n")
endfunction()
