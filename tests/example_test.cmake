# Installs the build into a fresh prefix, then builds the examples against that installed tree the
# way a CANN user does (ASCEND_CUSTOM_PATH, libraries by path) and the backward's also through
# find_package(AclnnCpu), runs each, and checks what it prints: examples/mse_loss_backward,
# examples/mse_loss (aclnnMseLoss and aclnnMseLossOut), examples/l1_loss_backward,
# examples/smooth_l1_loss_backward, examples/binary_cross_entropy_backward, examples/kl_div_backward and
# examples/training_step; with PYTHON (the
# interpreter the module was built for), examples/python through set_env.sh's PYTHONPATH. A cross
# build passes its toolchain file (TOOLCHAIN_FILE), so
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

# build_and_run(NAME PROJECT_DIR PROGRAM EXPECTED): configures and builds the project (the
# toolchain file of a cross build), checks that PROGRAM is built for the libraries' machine (e_machine
# of the ELF header: the cross compiler in a cross build), runs it (under the emulator) and compares
# its output with EXPECTED.
function(build_and_run name project_dir program expected)
  if(NOT EXISTS ${WORK_DIR}/${name}/CMakeCache.txt)
    run(${CMAKE_COMMAND} -S ${project_dir} -B ${WORK_DIR}/${name} -DCMAKE_PREFIX_PATH=${prefix} ${toolchain})
    run(${CMAKE_COMMAND} --build ${WORK_DIR}/${name})
  endif()
  file(READ ${WORK_DIR}/${name}/${program} machine OFFSET 18 LIMIT 2 HEX)
  file(READ ${prefix}/lib64/libascendcl.so library_machine OFFSET 18 LIMIT 2 HEX)
  if(NOT machine STREQUAL library_machine)
    message(FATAL_ERROR "${name}: ${program} is built for ELF machine ${machine}, the libraries for ${library_machine}")
  endif()
  run(${EMULATOR} ${WORK_DIR}/${name}/${program})
  if(NOT last_output STREQUAL expected)
    message(FATAL_ERROR "${name}: ${program} printed\n${last_output}\nexpected\n${expected}")
  endif()
  message(STATUS "${name}: ${program} printed the documented result")
endfunction()

build_and_run(cann_path ${SOURCE_DIR}/examples/mse_loss_backward opapi_test "${expected}")
build_and_run(find_package ${SOURCE_DIR}/tests/package_consumer opapi_test "${expected}")

# aclnnMseLoss: self {0, 1, 2, 3}, target {1, 1, 1, 1}, shape {2, 2}, mean: (1 + 0 + 1 + 4) / 4.
build_and_run(mse_loss ${SOURCE_DIR}/examples/mse_loss test_aclnn_mse_loss "result[0] is: 1.500000\n")
# aclnnMseLossOut, the same data: the mean over dim 0, columns {1, 1} and {0, 4}.
build_and_run(mse_loss ${SOURCE_DIR}/examples/mse_loss test_aclnn_mse_loss_out
              "result[0] is: 1.000000\nresult[1] is: 2.000000\n")

# aclnnL1LossBackward, the same data: sign(self - target) * gradOutput / 4 is {-0, 0, 0.5, 0.75}; the
# first element is -1 * (0 / 4), a negative zero, on both kernels (950's and A2/A3's).
build_and_run(l1_loss_backward ${SOURCE_DIR}/examples/l1_loss_backward test_aclnn_l1_loss_backward
              "result[0] is: -0.000000\nresult[1] is: 0.000000\nresult[2] is: 0.500000\nresult[3] is: 0.750000\n")

# aclnnSmoothL1LossBackward, the call ops-nn's examples/arch35 program documents: self - target is
# {-1, 0, 1, ..., 6}, beta 1, reduction none, gradOut all ones: -1 and 1 at |d| == beta, 0 at 0, 1
# beyond -- on the TBE kernel (inclusive outer compares) and on 950's Dag of strict compares
# (d * (1 / beta) there) alike.
set(smooth "result[0] is: -1.000000\nresult[1] is: 0.000000\nresult[2] is: 1.000000\nresult[3] is: 1.000000\n")
string(APPEND smooth "result[4] is: 1.000000\nresult[5] is: 1.000000\nresult[6] is: 1.000000\nresult[7] is: 1.000000\n")
build_and_run(smooth_l1_loss_backward ${SOURCE_DIR}/examples/smooth_l1_loss_backward
              test_aclnn_smooth_l1_loss_backward "${smooth}")

# aclnnBinaryCrossEntropyBackward, the call ops-nn's example documents: gradOutput 0.1, self 0.3,
# target 0.5, weight ones, none: 0.1 * (0.3 - 0.5) / (0.3 * 0.7) is -0.0952381 on either kernel's
# order (950's -0.09523809, A2/A3's -0.09523808 as float32: the same six decimals).
set(bce "result[0] is: -0.095238\nresult[1] is: -0.095238\nresult[2] is: -0.095238\nresult[3] is: -0.095238\n")
build_and_run(binary_cross_entropy_backward ${SOURCE_DIR}/examples/binary_cross_entropy_backward
              test_aclnn_binary_cross_entropy_backward "${bce}")

# aclnnKlDivBackward, the call ops-nn's example documents: gradOutput = target = {2, 3, 5, 8}, none,
# logTarget false: -gradOutput * target, exact on every kernel.
set(kl_div "result[0] is: -4.000000\nresult[1] is: -9.000000\nresult[2] is: -25.000000\nresult[3] is: -64.000000\n")
build_and_run(kl_div_backward ${SOURCE_DIR}/examples/kl_div_backward test_aclnn_kl_div_backward "${kl_div}")

# The training step: the loss falls at every step (w and b approach 2 and 1). Every number is
# determined: the operators' results are bit-exact and the example's host arithmetic exact.
set(training "step 0: loss 29.000000\nstep 1: loss 6.407227\nstep 2: loss 1.425137\nstep 3: loss 0.324809\n")
string(APPEND training "step 4: loss 0.080403\nstep 5: loss 0.024973\nstep 6: loss 0.011470\nstep 7: loss 0.007436\n")
string(APPEND training "after 8 steps: w 2.036175, b 0.883655\n")
build_and_run(training_step ${SOURCE_DIR}/examples/training_step training_step "${training}")

# The Python examples on the installed package, found through set_env.sh as a user finds it.
if(PYTHON)
  function(run_python script)
    run(bash -c "source '${prefix}/set_env.sh' && cd '${WORK_DIR}' && '${PYTHON}' '${SOURCE_DIR}/examples/python/${script}'")
    set(last_output "${last_output}" PARENT_SCOPE)
  endfunction()
  run_python(documented_calls.py)
  # (python/tests/test_examples.py checks the same file on the wheel)
  file(READ ${SOURCE_DIR}/examples/python/documented_calls.expected documented)
  if(NOT last_output STREQUAL documented)
    message(FATAL_ERROR "documented_calls.py printed\n${last_output}\nexpected\n${documented}")
  endif()
  # The bfloat16 training: stock torch refuses, then the loss falls (last step below a tenth of the first).
  run_python(train_bf16.py)
  if(NOT last_output MATCHES "not implemented for 'BFloat16'")
    message(FATAL_ERROR "train_bf16.py did not show stock torch's error:\n${last_output}")
  endif()
  string(REGEX MATCHALL "loss [0-9.]+" losses "${last_output}")
  list(GET losses 0 first)
  list(GET losses -1 last)
  string(REPLACE "loss " "" first "${first}")
  string(REPLACE "loss " "" last "${last}")
  run(${PYTHON} -c "import sys; sys.exit(0 if ${last} < ${first} / 10 else 1)")
  message(STATUS "python examples: the documented values; bfloat16 loss ${first} -> ${last}")
endif()
