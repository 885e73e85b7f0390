# Runs aclnn_case_runner as its CTest tests need, checking exit codes and report lines.
#   cmake -DRUNNER=<runner> -DCASES=<tests/cases> -DWORK_DIR=<scratch> -DMODE=<mode> [-DBUILD_DIR=<build>]
#         [-DEMULATOR=<command prefix, arguments separated by spaces, e.g. "qemu-aarch64 -L /">] -P this
# MODE corrupt:   malformed rows and cases are reported, the others still run, the counts say so
#      unusable:  a missing file, a non-case file, a JSON syntax error stop the run with exit code 2
#      compare:   compare mode passes NPU-style outputs equal to the golden, and reports a wrong one
#      reproduce: --filter and the seed reproduce a case's inputs; another seed changes them
#      installed: the installed runner (bin/, finding lib64/) runs the sample suite
foreach(var RUNNER CASES WORK_DIR MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()
separate_arguments(EMULATOR UNIX_COMMAND "${EMULATOR}")  # a cross build's runner runs under it
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(csv ${CASES}/mse_loss_grad_kernel.csv)
set(json ${CASES}/mse_loss_backward_api.json)

# run(<expected exit code> <runner arguments>...): stdout in `out`, stderr in `err`.
function(run expected)
  execute_process(COMMAND ${EMULATOR} ${RUNNER} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT rc STREQUAL "${expected}")
    message(FATAL_ERROR "exit code ${rc}, expected ${expected}: ${RUNNER} ${ARGN}\n${stdout}\n${stderr}")
  endif()
  set(out "${stdout}" PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
endfunction()

# expect(<text> <regex>...): every regex matches somewhere in text (write a ; in a regex as ".").
function(expect text)
  foreach(regex IN LISTS ARGN)
    if(NOT text MATCHES "${regex}")
      message(FATAL_ERROR "no match for\n  ${regex}\nin\n${text}")
    endif()
  endforeach()
endfunction()

# expect_last_line(<text> <line>): the report's last line is exactly line.
function(expect_last_line text line)
  string(REGEX MATCH "[^\n]*\n$" last "${text}")
  if(NOT last STREQUAL "${line}\n")
    message(FATAL_ERROR "last line is \"${last}\", expected \"${line}\", in\n${text}")
  endif()
endfunction()

if(MODE STREQUAL "corrupt")
  run(1 ${CASES}/bad/corrupt.csv ${CASES}/bad/corrupt.json)
  expect("${out}"
         "^seed 1\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 3: field 3: unterminated quote\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 4 \\(bad_field_count\\): the row has 4 fields, the header 9\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 5 \\(bad_dtype\\): field input_dtypes: unknown dtype \"float64\""
         "\nUNREADABLE [^\n]*corrupt.csv line 6 \\(bad_shape_literal\\): field input_shapes: column 16: "
         "\nUNREADABLE [^\n]*corrupt.csv line 7 \\(bad_range_form\\): field input_data_ranges: label: expected \\[lo, hi\\]"
         "\nFAIL bad_infer_mismatch \\([^\n]*corrupt.csv line 8\\): output_shapes says \\[5\\] but infer shape gives \\[4\\]\n"
         "\nFAIL bad_mean_over_empty \\([^\n]*line 9\\): tiling rejected the case: [^\n]*predict cannot be empty when reduction is mean"
         "\nFAIL bad_reduction_string \\([^\n]*line 10\\): tiling rejected the case: [^\n]*reduction \"avg\" is invalid"
         "\nUNREADABLE [^\n]*corrupt.json case id 1 at line 9 \\(bad_range_word\\): field inputs\\[0\\].range_values: expected"
         "\nUNREADABLE [^\n]*corrupt.json case id 2 at line 16 \\(bad_missing_self\\): field inputs: no self tensor\n"
         "\nUNREADABLE [^\n]*corrupt.json case id 3 at line 22 \\(bad_dtype\\): field inputs\\[0\\].dtype: unknown dtype \"fp64\""
         "\nUNREADABLE [^\n]*corrupt.json case at index 4 at line 29: the case is not a JSON object\n"
         "\nFAIL bad_reduction_value\\[reduction=3\\] \\([^\n]*\\): aclnnMseLossBackwardGetWorkspaceSize returned 161002: "
         "\nUNREADABLE [^\n]*corrupt.json case id 6 at line 37 \\(good_csv_first\\): duplicate case name \\(first at [^\n]*corrupt.csv line 2\\)\n")
  if(out MATCHES "(good_csv_last|good_json_first|reduction=2)")
    message(FATAL_ERROR "a passing case is in the report:\n${out}")
  endif()
  expect_last_line("${out}" "4 passed, 14 failed")

elseif(MODE STREQUAL "unusable")
  run(2 ${WORK_DIR}/missing.csv)
  expect("${err}" "missing.csv: cannot open: ")
  run(2 ${CASES}/bad/not_a_case.txt)
  expect("${err}" "not_a_case.txt: not a case file: neither a JSON array nor a CSV table")
  run(2 ${CASES}/bad/broken.json)
  expect("${err}" "broken.json: JSON: line 4 column 63: expected ',' or '}'")
  run(2 ${CASES})
  expect("${err}" "is a directory")
  # Nothing runs when any file is unusable.
  run(2 ${csv} ${WORK_DIR}/missing.csv)
  if(NOT out STREQUAL "")
    message(FATAL_ERROR "cases ran although a file is missing:\n${out}")
  endif()
  run(2 --threads 0 ${csv})
  expect("${err}" "--threads wants a count")

elseif(MODE STREQUAL "compare")
  # An NPU-style output directory: each run's golden saved as <case name>.npy.
  run(0 --dump-all ${WORK_DIR}/dump ${csv} ${json})
  file(GLOB goldens ${WORK_DIR}/dump/*.golden.npy ${WORK_DIR}/dump/*.golden.bf16-as-u2.npy)
  list(LENGTH goldens count)
  if(NOT count EQUAL 41)
    message(FATAL_ERROR "expected 41 dumped goldens, found ${count}")
  endif()
  file(MAKE_DIRECTORY ${WORK_DIR}/npu)
  foreach(golden IN LISTS goldens)
    get_filename_component(name ${golden} NAME)
    string(REGEX REPLACE "\\.golden\\..*$" ".npy" name "${name}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${golden} ${WORK_DIR}/npu/${name})
  endforeach()
  run(0 --compare ${WORK_DIR}/npu ${csv} ${json})
  expect_last_line("${out}" "41 passed, 0 failed, 1 skipped")
  # A deliberately wrong output: another case's golden of the same shape and dtype; and one missing.
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${WORK_DIR}/dump/kernel_fp32_mean_same_shape.golden.npy
                          ${WORK_DIR}/npu/api_fp32_mean_same_shape.npy)
  file(REMOVE ${WORK_DIR}/npu/kernel_fp32_all_0d.npy)
  run(1 --compare ${WORK_DIR}/npu ${csv} ${json})
  expect("${out}"
         "\nFAIL api_fp32_mean_same_shape \\([^\n]*\\): [0-9]+ of 256 elements \\([0-9.]+%\\) over rtol 0.0001 \\(allowed: 0.1%\\). first at index [0-9]+: expected -?[0-9.e+-]+ \\(0x[0-9a-f]+\\), actual -?[0-9.e+-]+ \\(0x[0-9a-f]+\\)\n"
         "\nFAIL kernel_fp32_all_0d \\([^\n]*\\): no output to compare: [^\n]*kernel_fp32_all_0d.npy: cannot open")
  expect_last_line("${out}" "39 passed, 2 failed, 1 skipped")
  # Everything over the threshold, but a share of 1 allowed.
  run(0 --compare ${WORK_DIR}/npu --rtol-share 1 --filter api_fp32_mean_same_shape ${json})

elseif(MODE STREQUAL "reproduce")
  run(0 --dump-all ${WORK_DIR}/all ${csv} ${json})
  # One case alone, files in the other order: the same inputs, golden and output, byte for byte.
  run(0 --seed 1 --filter "kernel_bf16_sum_broad*" --dump-all ${WORK_DIR}/one ${json} ${csv})
  expect_last_line("${out}" "1 passed, 0 failed")
  file(GLOB one RELATIVE ${WORK_DIR}/one ${WORK_DIR}/one/*)
  list(LENGTH one count)
  if(NOT count EQUAL 5)
    message(FATAL_ERROR "expected 5 files (3 inputs, golden, actual), found: ${one}")
  endif()
  foreach(name IN LISTS one)
    execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/one/${name} ${WORK_DIR}/all/${name}
                    RESULT_VARIABLE differ)
    if(differ)
      message(FATAL_ERROR "${name} differs when the case runs alone")
    endif()
  endforeach()
  # Another seed, other inputs; the report's first line says which.
  run(0 --seed 7 --filter "kernel_bf16_sum_broad*" --dump-all ${WORK_DIR}/seed7 ${csv})
  expect("${out}" "^seed 7\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/seed7/kernel_bf16_sum_broadcast.predict.bf16-as-u2.npy
                          ${WORK_DIR}/all/kernel_bf16_sum_broadcast.predict.bf16-as-u2.npy RESULT_VARIABLE differ)
  if(NOT differ)
    message(FATAL_ERROR "seed 7 gave the inputs of seed 1")
  endif()
  # One run of a reduction range, by its report name (brackets escaped for the glob).
  run(0 --filter "api_bf16_every_reduction\\[reduction=2\\]" ${json})
  expect_last_line("${out}" "1 passed, 0 failed")
  run(0 --filter "api_bf16_every_reduction" ${json})
  expect_last_line("${out}" "3 passed, 0 failed")

elseif(MODE STREQUAL "installed")
  if(NOT DEFINED BUILD_DIR)
    message(FATAL_ERROR "BUILD_DIR is not set")
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix RESULT_VARIABLE rc
                  OUTPUT_QUIET)
  if(rc)
    message(FATAL_ERROR "install failed (${rc})")
  endif()
  set(RUNNER ${WORK_DIR}/prefix/bin/aclnn_case_runner)
  run(0 ${csv} ${json})
  expect_last_line("${out}" "41 passed, 0 failed, 1 skipped")

else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
