# Installs the build into a fresh prefix, then builds the example against that installed tree the
# way a CANN user does (ASCEND_CUSTOM_PATH, libraries by path) and through find_package(AclnnCpu),
# runs both, and checks what they print. A cross build passes its toolchain file (TOOLCHAIN_FILE), so
# that the example is built with the same cross compiler, and the emulator that runs it (EMULATOR, a
# command prefix with its arguments separated by spaces).
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()

separate_arguments(EMULATOR UNIX_COMMAND "${EMULATOR}")
set(toolchain "")
if(TOOLCHAIN_FILE)
  set(toolchain -DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN_FILE})
endif()

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(ENV{ASCEND_CUSTOM_PATH} ${prefix})
set(ENV{LD_LIBRARY_PATH} "${prefix}/lib64:$ENV{LD_LIBRARY_PATH}")

# 0 * (0 - 1) * 2 / 4 is -0.0 in IEEE arithmetic (the sign of a product of a negative and a zero),
# and printf shows the sign: the first line is "-0.000000".
set(expected "result[0] is: -0.000000\nresult[1] is: 0.000000\nresult[2] is: 1.000000\nresult[3] is: 3.000000\n")

foreach(style cann_path find_package)
  if(style STREQUAL "cann_path")
    set(project_dir ${SOURCE_DIR}/examples/mse_loss_backward)
  else()
    set(project_dir ${SOURCE_DIR}/tests/package_consumer)
  endif()
  run(${CMAKE_COMMAND} -S ${project_dir} -B ${WORK_DIR}/${style} -DCMAKE_PREFIX_PATH=${prefix} ${toolchain})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${style})
  # Built for the libraries' machine (e_machine of the ELF header): the cross compiler in a cross build.
  file(READ ${WORK_DIR}/${style}/opapi_test machine OFFSET 18 LIMIT 2 HEX)
  file(READ ${prefix}/lib64/libascendcl.so library_machine OFFSET 18 LIMIT 2 HEX)
  if(NOT machine STREQUAL library_machine)
    message(FATAL_ERROR "${style}: the example is built for ELF machine ${machine}, the libraries for ${library_machine}")
  endif()
  run(${EMULATOR} ${WORK_DIR}/${style}/opapi_test)
  if(NOT last_output STREQUAL expected)
    message(FATAL_ERROR "${style}: the example printed\n${last_output}\nexpected\n${expected}")
  endif()
  message(STATUS "${style}: the example printed the documented result")
endforeach()
