# Script-mode checks of cmake/CudaArchitectures.cmake: detection from a fake nvidia-smi, the
# default with and without a GPU, and which architecture lists are refused.
# Usage: cmake -DSOURCE_DIR=<repo> -DWORK_DIR=<scratch dir> -P test_cuda_architectures.cmake
cmake_minimum_required(VERSION 3.25)
include(${SOURCE_DIR}/cmake/CudaArchitectures.cmake)

set(failures 0)
set(passes 0)
macro(expect_equal what got want)
  if("${got}" STREQUAL "${want}")
    math(EXPR passes "${passes} + 1")
  else()
    message("FAIL: ${what}: got '${got}', want '${want}'")
    math(EXPR failures "${failures} + 1")
  endif()
endmacro()

# A fake nvidia-smi on PATH that prints `output` and exits with `code`.
function(fake_nvidia_smi output code)
  file(MAKE_DIRECTORY ${WORK_DIR}/bin)
  file(WRITE ${WORK_DIR}/bin/nvidia-smi "#!/bin/sh\nprintf '${output}'\nexit ${code}\n")
  file(CHMOD ${WORK_DIR}/bin/nvidia-smi PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
endfunction()
set(ENV{PATH} "${WORK_DIR}/bin:/usr/bin:/bin")

fake_nvidia_smi("9.0\\n9.0\\n" 0)
rfl_detected_cuda_architectures(detected)
expect_equal("two H200s" "${detected}" "90")
rfl_default_cuda_architectures(default "${detected}")
expect_equal("default on two H200s" "${default}" "90")

fake_nvidia_smi("8.0\\n8.9\\n" 0)
rfl_detected_cuda_architectures(detected)
expect_equal("an A100 and an L40S" "${detected}" "80;89")

fake_nvidia_smi("NVIDIA-SMI has failed because it couldn't communicate with the driver\\n" 9)
rfl_detected_cuda_architectures(detected)
expect_equal("no driver" "${detected}" "")
rfl_default_cuda_architectures(default "${detected}")
expect_equal("default without a GPU" "${default}" "90")

file(REMOVE ${WORK_DIR}/bin/nvidia-smi)
rfl_detected_cuda_architectures(detected)
expect_equal("no nvidia-smi" "${detected}" "")

foreach(accepted "90" "80;89;90" "100;120" "90a-real" "80-virtual" "100f" "native")
  rfl_cuda_architectures_error(error "${accepted}")
  expect_equal("'${accepted}' accepted" "${error}" "")
endforeach()

rfl_cuda_architectures_error(error "80;75")
expect_equal("75 refused" "${error}" "CMAKE_CUDA_ARCHITECTURES '80;75': 75 is below 80 (the kernels need sm_80's bf16 mma.sync and cp.async); allowed: 80 or newer, e.g. \"80;89;90;100;120\", or native")
foreach(refused "all" "all-major" "sm_90" "" "52-real")
  rfl_cuda_architectures_error(error "${refused}")
  if(error MATCHES "^CMAKE_CUDA_ARCHITECTURES .*allowed: 80 or newer")
    math(EXPR passes "${passes} + 1")
  else()
    message("FAIL: '${refused}' not refused with the allowed list: '${error}'")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()

message("cuda_architectures: ${passes} passed, ${failures} failed")
if(failures GREATER 0)
  message(FATAL_ERROR "cuda_architectures: ${failures} failed")
endif()
