# The CUDA architectures rooflinectl is built for: the default chosen before project() (CMake
# would otherwise take nvcc's own default, 75, which the kernels cannot be built for) and the
# check that refuses architectures below 80. Pure functions of their arguments and of what
# nvidia-smi prints, so tests/cmake/test_cuda_architectures.cmake runs them in script mode.

# The oldest architecture the kernels build for: mma.sync m16n8k16 with bf16 operands and
# cp.async need sm_80.
set(RFL_MIN_CUDA_ARCHITECTURE 80)

# rfl_detected_cuda_architectures(<out>): the compute capabilities of the GPUs that nvidia-smi
# lists, as CMake architectures ("90", "80;89"), each once, in nvidia-smi's order; empty when
# nvidia-smi is not on PATH, fails (no driver) or lists no GPU.
function(rfl_detected_cuda_architectures out)
  find_program(nvidia_smi nvidia-smi NO_CACHE)
  set(architectures "")
  if(nvidia_smi)
    execute_process(COMMAND ${nvidia_smi} --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE text RESULT_VARIABLE result ERROR_QUIET TIMEOUT 30)
    if(result EQUAL 0)
      string(REGEX MATCHALL "[0-9]+\\.[0-9]+" capabilities "${text}")
      foreach(capability IN LISTS capabilities)
        string(REPLACE "." "" architecture "${capability}")
        list(APPEND architectures ${architecture})
      endforeach()
      list(REMOVE_DUPLICATES architectures)
    endif()
  endif()
  set(${out} "${architectures}" PARENT_SCOPE)
endfunction()

# rfl_default_cuda_architectures(<out> <detected>): `detected` (the GPUs of this machine) when it
# is not empty, else 90 (Hopper, the measured GPU). The sm_90a kernel libraries are built in
# either case (CMakeLists.txt, rfl_add_sm90a_kernels).
function(rfl_default_cuda_architectures out detected)
  if(detected)
    set(${out} "${detected}" PARENT_SCOPE)
  else()
    set(${out} 90 PARENT_SCOPE)
  endif()
endfunction()

# rfl_cuda_architectures_error(<out> <architectures>): empty when every entry of the list is one
# the build supports (a number of RFL_MIN_CUDA_ARCHITECTURE or more, with an optional a/f suffix
# and -real/-virtual, or `native`), else one line naming the first bad entry and what is allowed.
function(rfl_cuda_architectures_error out architectures)
  set(message "")
  set(allowed "allowed: ${RFL_MIN_CUDA_ARCHITECTURE} or newer, e.g. \"80;89;90;100;120\", or native")
  foreach(entry IN LISTS architectures)
    if(entry STREQUAL "native")
      continue()
    endif()
    if(entry MATCHES "^([0-9]+)[af]?(-real|-virtual)?$")
      if(CMAKE_MATCH_1 LESS RFL_MIN_CUDA_ARCHITECTURE)
        set(message "CMAKE_CUDA_ARCHITECTURES '${architectures}': ${entry} is below ${RFL_MIN_CUDA_ARCHITECTURE} (the kernels need sm_80's bf16 mma.sync and cp.async); ${allowed}")
      endif()
    else()
      set(message "CMAKE_CUDA_ARCHITECTURES '${architectures}': '${entry}' is not an architecture rooflinectl builds for (all and all-major include architectures below ${RFL_MIN_CUDA_ARCHITECTURE}); ${allowed}")
    endif()
    if(message)
      break()
    endif()
  endforeach()
  if(NOT architectures)
    set(message "CMAKE_CUDA_ARCHITECTURES is empty; ${allowed}")
  endif()
  set(${out} "${message}" PARENT_SCOPE)
endfunction()
