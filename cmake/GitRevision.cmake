# Writes ${OUTPUT} (core/version.hpp) from ${TEMPLATE} at BUILD time, so a report names the commit
# the binary was actually built from, not the one CMake was configured at. Run by the
# rfl_version target on every build: cmake -DSOURCE_DIR=... -DTEMPLATE=... -DOUTPUT=...
# -DPROJECT_VERSION=... -P cmake/GitRevision.cmake. The revision is, in order:
#   * the environment variable RFL_GIT_REVISION at build time (for a copy of the tree without
#     .git; not cached, so it never outlives the build that set it);
#   * `git rev-parse --short=12 HEAD` of SOURCE_DIR, with "-dirty" appended when tracked files
#     differ from HEAD (the binary then contains changes no commit has);
#   * empty (the report then says null, with the reason).
# The file is rewritten only when its text changes, so an unchanged revision rebuilds nothing.
if(DEFINED ENV{RFL_GIT_REVISION} AND NOT "$ENV{RFL_GIT_REVISION}" STREQUAL "")
  set(RFL_GIT_REVISION "$ENV{RFL_GIT_REVISION}")
else()
  execute_process(COMMAND git rev-parse --short=12 HEAD WORKING_DIRECTORY ${SOURCE_DIR}
                  OUTPUT_VARIABLE RFL_GIT_REVISION OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE rev_result ERROR_QUIET)
  if(NOT rev_result EQUAL 0)
    set(RFL_GIT_REVISION "")
  else()
    execute_process(COMMAND git diff --quiet HEAD -- WORKING_DIRECTORY ${SOURCE_DIR}
                    RESULT_VARIABLE dirty ERROR_QUIET)
    if(NOT dirty EQUAL 0)
      string(APPEND RFL_GIT_REVISION "-dirty")
    endif()
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT}.new @ONLY)
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
