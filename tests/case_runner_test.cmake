# Runs aclnn_case_runner as its CTest tests need, checking exit codes and report lines.
#   cmake -DRUNNER=<runner> -DCASES=<tests/cases> -DWORK_DIR=<scratch> -DMODE=<mode> [-DBUILD_DIR=<build>]
#         [-DEMULATOR=<command prefix, arguments separated by spaces, e.g. "qemu-aarch64 -L /">] -P this
# MODE corrupt:   malformed rows and cases are reported, the others still run, the counts say so
#      unusable:  a missing file, a non-case file, a JSON syntax error stop the run with exit code 2
#      compare:   compare mode passes NPU-style outputs equal to the golden, and reports a wrong one
#      reproduce: --filter and the seed reproduce a case's inputs; another seed changes them
#      installed: the installed runner (bin/, finding lib64/) runs the sample suite
#      jobs:      the report is byte-identical for --jobs 1, 2 and 3, and under a memory budget that
#                 lets one case run at a time; a case over the budget is skipped with its bytes
#      junit:     --junit writes a file that JUNIT_CHECK reads as well-formed JUnit whose counts are
#                 the summary line's; --list names every run without running it
#      forward:   the forward op's forms: the NOTE on reducing rows' output_shapes, ops chosen for
#                 rows that name none, out's dtype and shape per API, a case too large to hold
#      npu_orders: the discriminator suite: one SoC's outputs pass bit for bit under it (--method
#                 binary) and are refuted under another; every profile's self-run passes
#      ttk_forms: the forms of ops-nn's files as TTK and ATK read them (cases/ttk_forms): is_enabled
#                 in any case, input_data_ranges' one-for-all, padded, (x,) and None forms and the
#                 [-2, 2] default (checked in the dumped inputs), TTK's aclnn-level table refused
#                 row by row, an unknown operator among known ones, a prefixed aclnn_name, and an
#                 unusable file beside good ones
#      conventions: what CI tools do: --version, --list-ops, exit code 5 and a sentence when no run
#                 is selected, an unusable file as an error in --junit and --report, progress lines
#                 (failures so far, an estimate of the time left) when stderr is no terminal,
#                 directories scanned, --maxfail, --shard by size, and dumps that compare mode reads back
foreach(var RUNNER CASES WORK_DIR MODE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()
separate_arguments(EMULATOR UNIX_COMMAND "${EMULATOR}")  # a cross build's runner runs under it
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(csv ${CASES}/mse_loss_grad_kernel.csv)
set(real_csv ${CASES}/mse_loss_grad_kernel_real_columns.csv)
set(json ${CASES}/mse_loss_backward_api.json)
set(forward_csv ${CASES}/mse_loss_kernel_real_columns.csv)
set(forward_json ${CASES}/mse_loss_forward_api.json)
set(samples ${csv} ${real_csv} ${json} ${forward_csv} ${forward_json})
set(sample_summary "107 passed, 0 failed, 3 skipped")
set(sample_note "NOTE 6 rows of reducing ops \\(mean, sum\\) have output_shapes other than infer shape's 0-d y, such as the input's shape or \\(1,\\): judged against infer shape's\n")

# run(<expected exit code> <runner arguments>...): stdout in `out`, stderr in `err`. A report's
# summary line must end in its elapsed time ("... in 0.42 s"), which `out` holds without: the rest
# of a report is the same from run to run.
function(run expected)
  execute_process(COMMAND ${EMULATOR} ${RUNNER} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
  if(NOT expected STREQUAL "any" AND NOT rc STREQUAL "${expected}")
    message(FATAL_ERROR "exit code ${rc}, expected ${expected}: ${RUNNER} ${ARGN}\n${stdout}\n${stderr}")
  endif()
  if(stdout MATCHES "(^|\n)[0-9]+ passed, [0-9]+ failed[^\n]*\n$")
    set(elapsed " in ([0-9]+\\.[0-9]+ s|[0-9]+ min [0-9]+ s|[0-9]+ h [0-9]+ min)\n$")
    if(NOT stdout MATCHES "${elapsed}")
      message(FATAL_ERROR "the summary line has no elapsed time: ${RUNNER} ${ARGN}\n${stdout}")
    endif()
    string(REGEX REPLACE "${elapsed}" "\n" stdout "${stdout}")
  endif()
  set(out "${stdout}" PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
endfunction()

# run(<expected exit code, or any> <argument>...): out and err are the runner's stdout and stderr.
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
         "^seed 1 soc [A-Za-z0-9_-]+\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 3: field 3: unterminated quote\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 4 \\(bad_field_count\\): the row has 4 fields, the header 9\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 5 \\(bad_dtype\\): field input_dtypes: unknown dtype \"float64\""
         "\nUNREADABLE [^\n]*corrupt.csv line 6 \\(bad_shape_literal\\): field input_shapes: column 16: "
         "\nUNREADABLE [^\n]*corrupt.csv line 7 \\(bad_range_form\\): field input_data_ranges: label: expected \\[lo, hi\\]"
         "\nFAIL bad_infer_mismatch \\([^\n]*corrupt.csv line 8\\): output_shapes says \\[5\\] but infer shape gives \\[4\\]\n"
         "\nFAIL bad_mean_over_empty \\([^\n]*line 9\\): tiling rejected the case: [^\n]*predict cannot be empty when reduction is mean"
         "\nFAIL bad_reduction_string \\([^\n]*line 10\\): infer shape rejected the case: reduction \"avg\" is invalid"
         "\nUNREADABLE [^\n]*corrupt.json case id 1 at line 9 \\(bad_range_word#1\\): field inputs\\[0\\].range_values: expected"
         "\nUNREADABLE [^\n]*corrupt.json case id 2 at line 16 \\(bad_missing_self#2\\): field inputs: no self tensor\n"
         "\nUNREADABLE [^\n]*corrupt.json case id 3 at line 22 \\(bad_dtype#3\\): field inputs\\[0\\].dtype: unknown dtype \"fp64\""
         "\nUNREADABLE [^\n]*corrupt.json case at index 4 at line 29: the case is not a JSON object\n"
         "\nFAIL bad_reduction_value#5\\[reduction=3\\] \\([^\n]*\\): aclnnMseLossBackwardGetWorkspaceSize returned 161002: "
         "\nUNREADABLE [^\n]*corrupt.json case id 0 at line 37 \\(good_json_first#0\\): duplicate \\(name, id\\) \\(first at [^\n]*corrupt.json case id 0 at line 2\\)\n"
         "\nFAIL bad_forward_none_output \\([^\n]*line 11\\): output_shapes says \\[5\\] but infer shape gives \\[4\\]\n"
         "\nFAIL bad_forward_shapes_differ \\([^\n]*line 12\\): infer shape rejected the case: predict \\[4\\] and label \\[1\\] differ in shape\n"
         "\nFAIL bad_forward_dtypes_differ \\([^\n]*line 13\\): tiling rejected the case: MseLoss: predict FLOAT, label FLOAT16 and y FLOAT must have one dtype\n"
         "\nFAIL bad_forward_output_dtype \\([^\n]*line 14\\): output_dtypes says float32 but infer dtype gives float16\n"
         "\nUNREADABLE [^\n]*corrupt.csv line 15 \\(bad_op_name_empty_five_inputs\\): field op_name: empty, and 5 input shapes fit no operator. name one of [^\n]*mse_loss \\(predict, label\\)"
         "\nUNREADABLE [^\n]*corrupt.csv line 15 \\(bad_op_name_empty_five_inputs\\): [^\n]*mse_loss_grad \\(predict, label, dout\\)"
         "\nUNREADABLE [^\n]*corrupt.csv line 16 \\(bad_output_shapes_two\\): field output_shapes: expected one shape"
         "\nUNREADABLE [^\n]*corrupt.json case id 9 at line 51 \\(bad_forward_no_aclnn_name#9\\): field aclnn_name: missing, and the tensors it lists \\(self, target\\) fit [^\n]*MseLoss, MseLossOut[^\n]*. name one of "
         "\nFAIL bad_forward_no_broadcast#10 \\([^\n]*\\): aclnnMseLossOutGetWorkspaceSize returned 161002: [^\n]*do not broadcast"
         "\nNOTE 1 row of reducing ops \\(mean, sum\\) has output_shapes other than infer shape's 0-d y[^\n]*\n[0-9]+ passed")
  if(out MATCHES "(good_csv_last|good_json_first#8|good_json_last|reduction=2)")
    message(FATAL_ERROR "a passing case is in the report:\n${out}")
  endif()
  expect_last_line("${out}" "6 passed, 22 failed")

elseif(MODE STREQUAL "unusable")
  run(2 ${WORK_DIR}/missing.csv)
  expect("${err}" "missing.csv: cannot open: ")
  run(2 ${CASES}/bad/not_a_case.txt)
  expect("${err}" "not_a_case.txt: not a case file: neither a JSON array nor a CSV table")
  run(2 ${CASES}/bad/broken.json)
  expect("${err}" "broken.json: JSON: line 4 column 63: expected ',' or '}'")
  run(2 ${WORK_DIR})
  expect("${err}" "case_runner_unusable: no case file \\(\\*.csv, \\*.json\\) in the directory or under it")
  # An unusable file does not stop the others: they run, it is reported in the report and on
  # stderr, and the exit status is 2 although every case passed.
  run(2 ${csv} ${WORK_DIR}/missing.csv ${CASES}/bad/not_a_case.txt)
  expect("${out}" "^seed 1 soc [A-Za-z0-9_-]+\nUNUSABLE [^\n]*missing.csv: cannot open: [^\n]*\n"
         "\nUNUSABLE [^\n]*not_a_case.txt: not a case file: [^\n]*\n" "\n22 passed, 0 failed, 1 skipped\n$")
  expect("${err}" "missing.csv: cannot open: " "not_a_case.txt: not a case file")
  run(2 --list ${CASES}/bad/broken.json ${csv})
  expect("${out}" "^UNUSABLE [^\n]*broken.json: JSON: line 4 column 63: [^\n]*\nkernel_fp32_mean_same_shape ")
  string(REGEX MATCHALL "\n" lines "${out}")
  list(LENGTH lines count)
  if(NOT count EQUAL 24)
    message(FATAL_ERROR "--list beside an unusable file printed ${count} lines, not 24 (23 rows and UNUSABLE):\n${out}")
  endif()
  run(2 --threads 0 ${csv})
  expect("${err}" "--threads wants a count")

elseif(MODE STREQUAL "compare")
  # An NPU-style output directory: each run's golden saved as <case name>.npy.
  run(0 --dump-all ${WORK_DIR}/dump ${samples})
  file(GLOB goldens ${WORK_DIR}/dump/*.golden.npy)
  list(LENGTH goldens count)
  if(NOT count EQUAL 107)
    message(FATAL_ERROR "expected 107 dumped goldens, found ${count}")
  endif()
  file(MAKE_DIRECTORY ${WORK_DIR}/npu)
  foreach(golden IN LISTS goldens)
    get_filename_component(name ${golden} NAME)
    string(REGEX REPLACE "\\.golden\\.npy$" ".npy" name "${name}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${golden} ${WORK_DIR}/npu/${name})
  endforeach()
  run(0 --compare ${WORK_DIR}/npu ${samples})
  expect_last_line("${out}" "${sample_summary}")
  # A deliberately wrong output: another case's golden of the same shape and dtype; and one missing.
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${WORK_DIR}/dump/kernel_fp32_mean_same_shape.golden.npy
                          "${WORK_DIR}/npu/api_fp32_mean_same_shape#1.npy")
  file(REMOVE ${WORK_DIR}/npu/kernel_fp32_all_0d.npy)
  run(1 --compare ${WORK_DIR}/npu ${samples} --junit ${WORK_DIR}/compare.xml --report ${WORK_DIR}/compare.json)
  # TTK's mixed, the default: the statistics, the worst element's coordinates.
  expect("${out}"
         "\nFAIL api_fp32_mean_same_shape#1 \\([^\n]*\\): mixed: threshold exceeded: matched_ratio\\(0\\.[0-9]+<0\\.99\\)[^\n]*. [0-9]+ of 256 elements over \\([0-9.]+%\\). max abs [0-9.e+-]+, max rel [0-9.e+-]+, mean rel [0-9.e+-]+, rmse [0-9.e+-]+, cosine -?[0-9.e+-]+, max ulp [0-9]+. worst at \\[[0-9]+, [0-9]+\\] \\(index [0-9]+\\): expected -?[0-9.e+-]+ \\(0x[0-9a-f]+\\), actual -?[0-9.e+-]+ \\(0x[0-9a-f]+\\)\n"
         "\nFAIL kernel_fp32_all_0d \\([^\n]*\\): no output to compare: [^\n]*kernel_fp32_all_0d.npy: cannot open")
  expect_last_line("${out}" "105 passed, 2 failed, 3 skipped")
  file(READ ${WORK_DIR}/compare.xml xml)
  expect("${xml}" "method mixed \\(TTK, [^)]*mix_tolerance.py[^)]*\\): fail: threshold exceeded" "&#10;  at \\[[0-9]+, [0-9]+\\] \\(index [0-9]+\\): expected")
  file(READ ${WORK_DIR}/compare.json report)
  expect("${report}" "\"mode\":\"compare\",\"method\":\"mixed\"" "\"coordinates\":\\[[0-9]+,[0-9]+\\]")
  # Our own tolerance: everything over the threshold, but a share of 1 allowed.
  run(0 --compare ${WORK_DIR}/npu --method tolerance --rtol-share 1 --filter "api_fp32_mean_same_shape#1" ${json})
  # TTK's close reads a row's precision_tolerances: real_fp32_sum_any_share allows a share of 1, so
  # another case's output passes there; --rtol-share on the command line overrides it.
  execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${WORK_DIR}/dump/real_fp32_one_range_with_nan.golden.npy
                          ${WORK_DIR}/npu/real_fp32_sum_any_share.npy)
  run(0 --compare ${WORK_DIR}/npu --method close --filter real_fp32_sum_any_share ${real_csv})
  expect_last_line("${out}" "1 passed, 0 failed")
  run(1 --compare ${WORK_DIR}/npu --method close --filter real_fp32_sum_any_share --rtol-share 0 ${real_csv})
  expect("${out}" "\nFAIL real_fp32_sum_any_share \\([^\n]*\\): close: [0-9.]+% of elements not close \\(allowed: ptol 0\\)")
  # Bit for bit: the count once, then the statistics.
  run(1 --compare ${WORK_DIR}/npu --method binary --filter "api_fp32_mean_same_shape#1" ${json})
  expect("${out}" "\nFAIL api_fp32_mean_same_shape#1 \\([^\n]*\\): binary: not bit for bit. [0-9]+ of 256 elements differ \\([0-9.]+%\\). max abs")
  # A tolerance the method does not read is refused; so is a report that cannot be written, before
  # anything runs.
  run(2 --compare ${WORK_DIR}/npu --rtol 0.1 ${json})
  expect("${err}" "mixed reads none of --rtol \\(close reads")
  run(2 --compare ${WORK_DIR}/npu --report ${WORK_DIR}/no/such/dir/report.json ${json})
  expect("${err}" "no/such/dir/report.json: cannot write")
  # Methods that cannot apply say why; an unknown one lists the methods.
  run(2 --compare ${WORK_DIR}/npu --method benchmark ${json})
  expect("${err}" "needs a second device's output")
  run(2 --compare ${WORK_DIR}/npu --method nearly ${json})
  expect("${err}" "the methods: mixed, close, stat_rel_err, cosine, binary, run_ut")

elseif(MODE STREQUAL "reproduce")
  run(0 --dump-all ${WORK_DIR}/all ${samples})
  # One case alone, files in the other order: the same inputs, golden and output, byte for byte.
  run(0 --seed 1 --filter "kernel_bf16_sum_broad*" --dump-all ${WORK_DIR}/one ${json} ${real_csv} ${csv})
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
  expect("${out}" "^seed 7 soc [A-Za-z0-9_-]+\n")
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK_DIR}/seed7/kernel_bf16_sum_broadcast.predict.npy
                          ${WORK_DIR}/all/kernel_bf16_sum_broadcast.predict.npy RESULT_VARIABLE differ)
  if(NOT differ)
    message(FATAL_ERROR "seed 7 gave the inputs of seed 1")
  endif()
  # One run of a reduction range, by its report name (brackets escaped for the glob).
  run(0 --filter "api_bf16_every_reduction#0\\[reduction=2\\]" ${json})
  expect_last_line("${out}" "1 passed, 0 failed")
  run(0 --filter "api_bf16_every_reduction#0" ${json})
  expect_last_line("${out}" "3 passed, 0 failed")
  # Repeated names: each (name, id) its own case, with its own inputs.
  run(0 --filter "test_mse_loss_backward#1[34]" ${json})
  expect_last_line("${out}" "2 passed, 0 failed")
  run(0 --filter "test_mse_loss_backward#*" ${json})
  expect_last_line("${out}" "9 passed, 0 failed")

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
  run(0 ${samples})
  expect("${out}" "\n${sample_note}${sample_summary}\n$")
  # set_env.sh puts bin/ on PATH, where the wheel's command name, aclnn-case-runner, is the program too.
  execute_process(COMMAND bash -c "source \"$1/set_env.sh\" && command -v aclnn-case-runner" sh ${WORK_DIR}/prefix
                  RESULT_VARIABLE rc OUTPUT_VARIABLE found OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(rc OR NOT found STREQUAL "${WORK_DIR}/prefix/bin/aclnn-case-runner")
    message(FATAL_ERROR "after set_env.sh, aclnn-case-runner is \"${found}\" (${rc}), not the install's")
  endif()
  set(RUNNER ${found})
  run(0 --version)
  expect("${out}" "^aclnn_case_runner [0-9.]+\n$")

elseif(MODE STREQUAL "jobs")
  set(all ${samples} ${CASES}/bad/corrupt.csv ${CASES}/bad/corrupt.json)
  run(1 --jobs 1 ${all})
  set(one "${out}")
  foreach(jobs 2 3)
    run(1 --jobs ${jobs} ${all})
    if(NOT out STREQUAL one)
      message(FATAL_ERROR "the report with --jobs ${jobs} differs from --jobs 1:\n${out}\n---\n${one}")
    endif()
  endforeach()
  # 1 MiB: the large*parallel cases need more and are skipped with their bytes; the others run
  # whenever they fit beside each other; the rest of the report is the same but for the NOTE,
  # which counts only the rows that ran.
  run(1 --jobs 3 --memory-budget 1M ${all})
  expect("${out}" "\nSKIP kernel_fp32_large_parallel \\([^\n]*\\): its tensors need 4194304 bytes \\(4.0 MiB\\), more than the memory budget of 1048576 bytes \\(1.0 MiB\\)\n"
         "\nSKIP api_fp16_large_parallel#11 \\([^\n]*\\): its tensors need 1573888 bytes")
  string(REGEX REPLACE "\nSKIP [^\n]*large[^\n]*parallel[^\n]*" "" skipped_out "${out}")
  string(REGEX REPLACE "NOTE [^\n]*\n[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped\n$" "" skipped_out "${skipped_out}")
  string(REGEX REPLACE "NOTE [^\n]*\n[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped\n$" "" one_lines "${one}")
  if(NOT skipped_out STREQUAL one_lines)
    message(FATAL_ERROR "a small memory budget changed the report beyond its skips:\n${out}")
  endif()
  run(2 --memory-budget 0 ${csv})
  expect("${err}" "--memory-budget wants a positive byte count")

elseif(MODE STREQUAL "junit")
  foreach(var JUNIT_CHECK)
    if(NOT DEFINED ${var})
      message(FATAL_ERROR "${var} is not set")
    endif()
  endforeach()
  set(all ${samples} ${CASES}/bad/corrupt.csv ${CASES}/bad/corrupt.json)
  run(1 --junit ${WORK_DIR}/results.xml ${all})
  string(REGEX MATCH "([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped\n$" summary "${out}")
  set(passed ${CMAKE_MATCH_1})
  set(failed ${CMAKE_MATCH_2})
  set(skipped ${CMAKE_MATCH_3})
  math(EXPR total "${passed} + ${failed} + ${skipped}")
  execute_process(COMMAND ${EMULATOR} ${JUNIT_CHECK} ${WORK_DIR}/results.xml ${total} ${failed} ${skipped} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE check ERROR_VARIABLE check)
  if(rc)
    message(FATAL_ERROR "the JUnit file does not check (${rc}): ${check}")
  endif()
  # Every FAIL line is a failure message; the suites are the files.
  file(READ ${WORK_DIR}/results.xml xml)
  expect("${xml}" "<testsuite name=\"[^\"]*mse_loss_grad_kernel_real_columns.csv\" tests=\"6\" failures=\"0\" errors=\"0\" skipped=\"1\""
         "<failure message=\"FAIL bad_infer_mismatch \\(")
  # --shard K/N: three shards hold every run once; their JUnit files add up to the whole run's
  # counts, and a shard's runs are the same whatever --jobs says.
  set(shard_tests 0)
  set(shard_failures 0)
  set(shard_skipped 0)
  set(shard_names "")
  foreach(k 1 2 3)
    run(any --shard ${k}/3 --jobs ${k} --junit ${WORK_DIR}/shard${k}.xml ${all})
    file(READ ${WORK_DIR}/shard${k}.xml shard_xml)
    string(REGEX MATCH "<testsuites name=\"aclnn_case_runner\" tests=\"([0-9]+)\" failures=\"([0-9]+)\" errors=\"0\" skipped=\"([0-9]+)\"" head "${shard_xml}")
    math(EXPR shard_tests "${shard_tests} + ${CMAKE_MATCH_1}")
    math(EXPR shard_failures "${shard_failures} + ${CMAKE_MATCH_2}")
    math(EXPR shard_skipped "${shard_skipped} + ${CMAKE_MATCH_3}")
    run(0 --shard ${k}/3 --list ${all})
    string(APPEND shard_names "${out}")
  endforeach()
  if(NOT shard_tests EQUAL total OR NOT shard_failures EQUAL failed OR NOT shard_skipped EQUAL skipped)
    message(FATAL_ERROR "the shards hold ${shard_tests} runs, ${shard_failures} failed, ${shard_skipped} skipped; "
                        "the whole run ${total}, ${failed}, ${skipped}")
  endif()
  run(0 --list ${all})
  string(REGEX MATCHALL "[^\n]+" whole_lines "${out}")
  string(REGEX MATCHALL "[^\n]+" shard_lines "${shard_names}")
  list(SORT whole_lines)
  list(SORT shard_lines)
  if(NOT whole_lines STREQUAL shard_lines)
    message(FATAL_ERROR "the shards' --list lines are not the whole run's")
  endif()
  run(2 --shard 4/3 ${all})
  expect("${err}" "--shard wants K/N with 1 <= K <= N")
  # --list: every run, nothing run.
  run(0 --list ${samples})
  string(REGEX MATCHALL "\n" lines "${out}")
  list(LENGTH lines count)
  if(NOT count EQUAL 110)
    message(FATAL_ERROR "--list printed ${count} lines, not 110:\n${out}")
  endif()
  expect("${out}" "^kernel_fp32_mean_same_shape \\([^\n]*line 2\\): mse_loss_grad predict float32 \\[32, 8\\], "
         "\napi_bf16_every_reduction#0\\[reduction=1\\] \\([^\n]*\\): MseLossBackward self bfloat16 \\[6, 5, 4\\]"
         "\nreal_bf16_disabled \\([^\n]*\\): disabled\n")
  if(out MATCHES "seed|passed")
    message(FATAL_ERROR "--list ran the cases:\n${out}")
  endif()

elseif(MODE STREQUAL "forward")
  # The forward files alone: every run passes; the NOTE line, once, just before the summary.
  run(0 ${forward_csv} ${forward_json})
  expect("${out}" "^seed 1 soc [A-Za-z0-9_-]+\n${sample_note}52 passed, 0 failed, 1 skipped\n$")
  run(0 --filter fwd_fp16_sum_output_one ${forward_csv})
  expect("${out}" "^seed 1 soc [A-Za-z0-9_-]+\nNOTE 1 row of reducing ops [^\n]* has output_shapes [^\n]*\n1 passed, 0 failed\n$")
  # Flat output_shapes, (64,30,2) and ((4,128,1,10)): read as that shape; a 0-d ((),) agrees with
  # infer shape; neither is noted.
  run(0 --filter "fwd_*_flat_output*" ${forward_csv})
  expect("${out}" "^seed 1 soc [A-Za-z0-9_-]+\n2 passed, 0 failed\n$")
  run(0 --filter fwd_bf16_sum_output_0d ${forward_csv})
  expect("${out}" "^seed 1 soc [A-Za-z0-9_-]+\n1 passed, 0 failed\n$")
  # Each row runs the op it names (one that names none and whose input count fits several ops is
  # refused: test_case_runner.cpp, ForwardTableForms).
  run(0 --list ${forward_csv})
  expect("${out}" "\nfwd_two_inputs_op_named \\([^\n]*\\): mse_loss predict float16 \\[9\\], label float16 \\[9\\]\n"
         "\ngrad_three_inputs_named \\([^\n]*\\): mse_loss_grad predict float16 \\[9\\], label float16 \\[9\\], dout float16 \\[\\]\n"
         "\nfwd_default_reduction_no_attributes \\([^\n]*\\): mse_loss ")
  # out: the promotion of the two dtypes; 0-d (MseLoss) or without dim 0 (MseLossOut) for mean and sum.
  run(0 --filter "test_mse_loss#[23]" --dump-all ${WORK_DIR}/mixed ${forward_json})
  run(0 --filter "test_mse_loss#1" --dump-all ${WORK_DIR}/same ${forward_json})
  run(0 --filter "test_mse_loss_out#[01]" --dump-all ${WORK_DIR}/out ${forward_json})
  foreach(check "mixed/test_mse_loss#2.golden.npy|'<f4'.*'shape': \\(\\)"
                "mixed/test_mse_loss#3.golden.npy|'<f4'.*'shape': \\(5, 3, 4\\)"
                "same/test_mse_loss#1.golden.npy|'<u2'.*'shape': \\(\\)"
                "out/test_mse_loss_out#0.golden.npy|'<f4'.*'shape': \\(5, 4\\)"
                "out/test_mse_loss_out#1.golden.npy|'<f4'.*'shape': \\(3,\\)")
    string(REPLACE "|" ";" check "${check}")
    list(GET check 0 file)
    list(GET check 1 header)
    file(STRINGS ${WORK_DIR}/${file} npy REGEX "descr" LIMIT_COUNT 1)
    expect("${npy}" "${header}")
  endforeach()
  # A case far beyond any memory is skipped with the bytes it needs; nothing is allocated for it.
  file(WRITE ${WORK_DIR}/huge.json "[{\"id\": 0, \"name\": \"huge\", \"aclnn_name\": \"MseLoss\", \"inputs\": [
    {\"name\": \"self\", \"type\": \"tensor\", \"dtype\": \"bf16\", \"shape\": [256, 15, 131073, 7, 1024], \"range_values\": [-1, 1]},
    {\"name\": \"target\", \"type\": \"tensor\", \"dtype\": \"bf16\", \"shape\": [256, 15, 131073, 7, 1024], \"range_values\": [-1, 1]},
    {\"name\": \"reduction\", \"type\": \"attr\", \"dtype\": \"int\", \"range_values\": 0}]}]")
  run(0 ${WORK_DIR}/huge.json)
  expect("${out}" "\nSKIP huge#0 \\([^\n]*\\): its tensors need 21646800322560 bytes \\(20160.15 GiB\\), more than the memory budget of "
         "\n0 passed, 0 failed, 1 skipped\n$")

elseif(MODE STREQUAL "npu_orders")
  # The discriminator suite as an NPU owner uses it: the outputs of one SoC's kernels (here ours,
  # dumped) pass bit for bit under that SoC and are refuted under another whose kernel adds in
  # another order; --soc refuses a name it does not know.
  set(orders ${CASES}/npu_order/mse_loss_orders.json)
  run(0 --soc Ascend910B3 --dump-all ${WORK_DIR}/dump ${orders})
  expect("${out}" "^seed 1 soc Ascend910B3\n" "\n22 passed, 0 failed\n$")
  file(GLOB actuals ${WORK_DIR}/dump/*.actual.npy)
  file(MAKE_DIRECTORY ${WORK_DIR}/npu)
  foreach(actual IN LISTS actuals)
    get_filename_component(name ${actual} NAME)
    string(REGEX REPLACE "\\.actual\\.npy$" ".npy" name "${name}")
    execute_process(COMMAND ${CMAKE_COMMAND} -E copy ${actual} ${WORK_DIR}/npu/${name})
  endforeach()
  run(0 --soc Ascend910B3 --method binary --compare ${WORK_DIR}/npu ${orders})
  expect_last_line("${out}" "22 passed, 0 failed")
  run(1 --soc Ascend950PR_9599 --method binary --compare ${WORK_DIR}/npu ${orders})
  expect("${out}" "^seed 1 soc Ascend950PR_9599\n" "\nFAIL mse_loss_npu_order#[0-9]+\\[reduction=[12]\\] ")
  # The same outputs are within our tolerance and TTK's stat_rel_err of 950's golden: they cannot
  # tell the orders apart. TTK's default, mixed, fails some on its absolute max_abs_error limit
  # (0.01 for float32), which a difference of one unit in the last place exceeds above 2^17.
  run(0 --soc Ascend950PR_9599 --method tolerance --compare ${WORK_DIR}/npu ${orders})
  run(0 --soc Ascend950PR_9599 --method stat_rel_err --compare ${WORK_DIR}/npu ${orders})
  run(1 --soc Ascend950PR_9599 --compare ${WORK_DIR}/npu ${orders})
  expect("${out}" "\nFAIL mse_loss_npu_order#[0-9]+\\[reduction=[12]\\] [^\n]*: mixed: threshold exceeded: max_abs_error")
  foreach(soc Ascend910_9392 Ascend950PR_9599 Ascend310P3)
    run(0 --soc ${soc} ${orders})
    expect_last_line("${out}" "22 passed, 0 failed")
  endforeach()
  run(2 --soc Ascend910X ${orders})
  expect("${err}" "--soc: ACLNN_CPU_SOC_NAME \"Ascend910X\" is not a SoC aclnn-cpu knows. the known ones are Ascend910B1, ")
  run(2 --method close ${orders})
  expect("${err}" "--atol judge the outputs --compare reads. a self-run is judged bit for bit")

elseif(MODE STREQUAL "ttk_forms")
  set(forms ${CASES}/ttk_forms/kernel_forms.csv)
  set(aclnn_level ${CASES}/ttk_forms/aclnn_level.csv)
  set(prefixed ${CASES}/ttk_forms/prefixed_api.json)
  # --list reads all three files; every refusal is one row, named, and names what it refuses.
  run(0 --list ${forms} ${aclnn_level} ${prefixed})
  expect("${out}"
         "^en_upper_TRUE \\([^\n]*line 2\\): mse_loss_grad predict float32 \\[8\\]"
         "\nen_title_True \\([^\n]*\\): mse_loss predict"
         "\nen_lower_true \\([^\n]*\\): mse_loss predict float16"
         "\nen_empty \\([^\n]*\\): mse_loss_grad predict bfloat16"
         "\ndis_lower_false \\([^\n]*\\): disabled\n"
         "\ndis_upper_FALSE \\([^\n]*\\): disabled\n"
         "\ndis_zero \\([^\n]*\\): disabled\n"
         "\nUNREADABLE [^\n]*kernel_forms.csv line 9: field is_enabled: \"yes\" is not TRUE, FALSE \\(in any case\\), 1 or 0\n"
         "\nrng_none_none_for_all \\([^\n]*\\): mse_loss_grad "
         "\nUNREADABLE [^\n]*kernel_forms.csv line 16: field input_data_ranges: 3 ranges for 2 inputs \\(predict and label\\). TTK marks such a row invalid \\(CASE_FIELD_AMBIGUOUS\\)\n"
         "\nUNREADABLE [^\n]*kernel_forms.csv line 17: field input_data_ranges: label: None, which TTK gives only an absent optional input"
         "\ntol_two_pairs \\([^\n]*\\): mse_loss "
         "\nUNREADABLE [^\n]*kernel_forms.csv line 19: field op_name: \"soft_margin_loss_grad\" is not an operator this runner knows"
         "\nUNREADABLE [^\n]*aclnn_level.csv line 2: field api_name: aclnnFusedCrossEntropyLossWithMaxSum is not an operator this runner knows \\(its APIs: "
         "\nUNREADABLE [^\n]*aclnn_level.csv line 3: field api_name: aclnnMseLoss: rows of TTK's aclnn-level tables \\(api_name, tensor_view_shapes, ...\\) are not run yet"
         "\nmse_loss_disabled \\([^\n]*aclnn_level.csv line 4\\): disabled\n"
         "\nUNREADABLE [^\n]*aclnn_level.csv line 5: field api_name: empty\n"
         "\nprefixed_backward#0 \\([^\n]*\\): MseLossBackward self float32 \\[4\\]"
         "\nprefixed_forward#1\\[reduction=2\\] \\([^\n]*\\): MseLoss self float16 \\[2, 3\\]"
         "\nUNREADABLE [^\n]*prefixed_api.json case id 2 at line [0-9]+: field aclnn_name: \"aclnnLogit\" is not an API this runner knows")
  string(REGEX MATCHALL "\nUNREADABLE " unreadable "\n${out}")
  list(LENGTH unreadable count)
  if(NOT count EQUAL 8)
    message(FATAL_ERROR "expected 8 unreadable rows and cases, found ${count}:\n${out}")
  endif()
  # A self-run: the readable rows pass (a row with two tolerance pairs too: a self-run does not
  # read them), the refused ones count as failed, the disabled ones as skipped; compare mode
  # refuses the two pairs.
  run(1 --dump-all ${WORK_DIR}/dump ${forms} ${aclnn_level} ${prefixed})
  expect("${out}" "\nUNREADABLE [^\n]*line 9 \\(bad_enabled_yes\\): field is_enabled"
         "\nUNREADABLE [^\n]*aclnn_level.csv line 2 \\(fused_ce_0001\\): field api_name: aclnnFusedCrossEntropyLossWithMaxSum is not an operator")
  if(out MATCHES "FAIL (en_|rng_|tol_|prefixed)")
    message(FATAL_ERROR "a readable row failed:\n${out}")
  endif()
  expect_last_line("${out}" "15 passed, 8 failed, 4 skipped")
  run(1 --compare ${WORK_DIR}/dump --method close --filter tol_two_pairs ${forms})
  expect("${out}" "\nUNREADABLE [^\n]*line 18 \\(tol_two_pairs\\): field precision_tolerances: expected one \\(relative error, share\\) pair")

  # The generated inputs, read from the dumps (float32, little-endian): each value's class.
  # npy_f32(<file> <var>): var holds the element count, then how many are negative, >= 1 in
  # magnitude, > 1, > 2, and the distinct words.
  function(npy_f32 file var)
    file(READ ${file} hex HEX)
    string(SUBSTRING "${hex}" 16 4 len)  # header length, little-endian
    string(SUBSTRING "${len}" 2 2 len_hi)
    string(SUBSTRING "${len}" 0 2 len_lo)
    math(EXPR offset "(10 + 0x${len_hi}${len_lo}) * 2")
    string(SUBSTRING "${hex}" ${offset} -1 data)
    string(REGEX MATCHALL "........" words "${data}")
    set(n 0)
    set(negative 0)
    set(at_least_one 0)
    set(above_one 0)
    set(above_two 0)
    set(distinct "")
    foreach(w IN LISTS words)
      string(REGEX REPLACE "(..)(..)(..)(..)" "\\4\\3\\2\\1" be "${w}")
      math(EXPR bits "0x${be}")
      math(EXPR magnitude "${bits} & 0x7fffffff")
      math(EXPR n "${n} + 1")
      if(NOT magnitude EQUAL bits)
        math(EXPR negative "${negative} + 1")
      endif()
      if(magnitude GREATER_EQUAL 1065353216)  # 0x3f800000, 1.0
        math(EXPR at_least_one "${at_least_one} + 1")
      endif()
      if(magnitude GREATER 1065353216)
        math(EXPR above_one "${above_one} + 1")
      endif()
      if(magnitude GREATER 1073741824)  # 0x40000000, 2.0
        math(EXPR above_two "${above_two} + 1")
      endif()
      list(APPEND distinct ${be})
    endforeach()
    list(REMOVE_DUPLICATES distinct)
    set(${var} "${n};${negative};${at_least_one};${above_one};${above_two};${distinct}" PARENT_SCOPE)
  endfunction()
  # U[-2, 2]: ((None, None),) for every input, an empty field, a padded entry.
  foreach(input rng_none_none_for_all.predict rng_none_none_for_all.label rng_none_none_for_all.dout
                rng_empty_default.predict rng_empty_default.label rng_empty_default.dout rng_short_list_padded.dout)
    npy_f32(${WORK_DIR}/dump/${input}.npy stats)
    list(GET stats 0 n)
    list(GET stats 1 negative)
    list(GET stats 2 at_least_one)
    list(GET stats 4 above_two)
    if(NOT n EQUAL 64 OR above_two GREATER 0 OR negative EQUAL 0 OR negative EQUAL 64 OR at_least_one EQUAL 0)
      message(FATAL_ERROR "${input}: not U[-2, 2]: ${n} values, ${negative} negative, ${at_least_one} of magnitude >= 1, ${above_two} over 2")
    endif()
  endforeach()
  # U[0, 1] for every input from ((0.0, 1.0),).
  foreach(input predict label dout)
    npy_f32(${WORK_DIR}/dump/rng_zero_one_for_all.${input}.npy stats)
    list(GET stats 1 negative)
    list(GET stats 3 above_one)
    if(negative GREATER 0 OR above_one GREATER 0)
      message(FATAL_ERROR "rng_zero_one_for_all.${input}: values outside [0, 1]: ${stats}")
    endif()
  endforeach()
  # (x,) is (x, x): every element x; padded lists keep their given entries.
  foreach(check "rng_one_value_each.predict|40400000" "rng_one_value_each.label|40800000"
                "rng_one_value_each.dout|BF800000")
    string(REPLACE "|" ";" check "${check}")
    list(GET check 0 input)
    list(GET check 1 word)
    npy_f32(${WORK_DIR}/dump/${input}.npy stats)
    list(SUBLIST stats 5 -1 distinct)
    string(TOUPPER "${distinct}" distinct)
    if(NOT distinct STREQUAL word)
      message(FATAL_ERROR "${input}: expected every element 0x${word}, found ${distinct}")
    endif()
  endforeach()
  npy_f32(${WORK_DIR}/dump/rng_short_list_padded.predict.npy stats)
  list(GET stats 3 above_one)
  list(GET stats 1 negative)
  if(NOT above_one EQUAL 64 OR negative GREATER 0)
    message(FATAL_ERROR "rng_short_list_padded.predict: not in [5, 6]: ${stats}")
  endif()

elseif(MODE STREQUAL "conventions")
  run(0 --version)
  expect("${out}" "^aclnn_case_runner [0-9]+\\.[0-9]+\\.[0-9]+\n$")
  # Every operator, as both formats name it and its inputs; an API without kernel rows says so.
  run(0 --list-ops)
  expect("${out}" "(^|\n)api MseLossBackward \\(self, target, gradOutput\\). kernel mse_loss_grad \\(predict, label, dout\\)\n"
         "\napi MseLossOut \\(self, target\\). kernel none\n")

  # Nothing selected: exit code 5 (pytest's) and one sentence on stderr, whatever the reason; the
  # JUnit file is still written, empty.
  run(5 --filter "nomatch*" --junit ${WORK_DIR}/none.xml ${csv})
  expect("${err}" "^aclnn_case_runner: no run selected: --filter 'nomatch\\*' matches no run of the 23 cases in the files\n$")
  execute_process(COMMAND ${EMULATOR} ${JUNIT_CHECK} ${WORK_DIR}/none.xml 0 0 0 RESULT_VARIABLE rc OUTPUT_VARIABLE check
                  ERROR_VARIABLE check)
  if(rc)
    message(FATAL_ERROR "the JUnit file of no run does not check (${rc}): ${check}")
  endif()
  run(5 --list --filter "nomatch*" ${csv})
  file(WRITE ${WORK_DIR}/header_only.csv "testcase_name,input_shapes,input_dtypes\n")
  run(5 ${WORK_DIR}/header_only.csv)
  expect("${err}" "no run selected: the files hold no case\n")
  run(5 --shard 2/2 --filter kernel_fp32_mean_same_shape ${csv})
  expect("${err}" "no run selected: shard 2/2 holds none of the 1 run selected \\(more shards than runs\\)")

  # A file that cannot be used is an error entry in --junit and --report beside the runs.
  run(2 --junit ${WORK_DIR}/unusable.xml --report ${WORK_DIR}/unusable.json ${csv} ${WORK_DIR}/missing.csv)
  execute_process(COMMAND ${EMULATOR} ${JUNIT_CHECK} ${WORK_DIR}/unusable.xml 24 0 1 1 RESULT_VARIABLE rc
                  OUTPUT_VARIABLE check ERROR_VARIABLE check)
  if(rc)
    message(FATAL_ERROR "the JUnit file with an unusable file does not check (${rc}): ${check}")
  endif()
  file(READ ${WORK_DIR}/unusable.xml xml)
  expect("${xml}" "<testsuite name=\"[^\"]*missing.csv\" tests=\"1\" failures=\"0\" errors=\"1\" skipped=\"0\""
         "<testcase name=\"[^\"]*missing.csv\" classname=\"unusable\"[^>]*>\n *<error message=\"UNUSABLE [^\"]*missing.csv: cannot open: ")
  file(READ ${WORK_DIR}/unusable.json report)
  expect("${report}" "\"errors\":1," "\"op\":\"unusable\",\"outcome\":\"error\",\"line\":\"UNUSABLE [^\"]*missing.csv: cannot open")

  # stderr is no terminal here: a line at once, then progress every --heartbeat seconds, and once more
  # at the end when that time has passed since the last or runs finished since it (the runs take
  # more than 1 ms: a progress line is printed).
  run(0 --heartbeat 0.001 ${csv})
  expect("${err}" "(^|\n)aclnn_case_runner: 23 runs to run. a progress line every 0.00 s\n"
         "\naclnn_case_runner: 23/23 runs done, 0 failed, [0-9.]+ s elapsed\n")
  # A line before the end has the failures so far and an estimate of the time left: the failing rows
  # come first, then the sample suite's runs one at a time (0.15 s on the 2-core host, a line a ms).
  run(1 --jobs 1 --heartbeat 0.001 ${CASES}/bad/corrupt.csv ${CASES}/bad/corrupt.json ${samples})
  expect("${err}" "\naclnn_case_runner: [0-9]+/138 runs done, [1-9][0-9]* failed, [^\n]* elapsed, about [^\n]* left\n"
         "\naclnn_case_runner: 138/138 runs done, 22 failed, [^\n]* elapsed\n")
  run(0 --heartbeat 0 ${csv})
  if(NOT err STREQUAL "")
    message(FATAL_ERROR "--heartbeat 0 printed progress:\n${err}")
  endif()

  # A directory: its *.csv and *.json files at any depth in path order, hidden ones left out; a file
  # of those kinds that is not a case file is passed over with a note. The same runs as the files.
  file(MAKE_DIRECTORY ${WORK_DIR}/tree/loss/a/tests ${WORK_DIR}/tree/.hidden)
  file(COPY ${csv} DESTINATION ${WORK_DIR}/tree/loss/a/tests)
  file(COPY ${json} DESTINATION ${WORK_DIR}/tree/loss)
  file(COPY ${csv} DESTINATION ${WORK_DIR}/tree/.hidden)
  file(WRITE ${WORK_DIR}/tree/loss/settings.json "{\"not\": \"a case list\"}\n")
  file(WRITE ${WORK_DIR}/tree/notes.txt "not a case file\n")
  run(0 --list ${WORK_DIR}/tree)
  expect("${err}" "tree: passed over 1 file that is not a case file, such as [^\n]*settings.json\n")
  string(REGEX REPLACE " \\([^\n]*\\.(csv|json)[^\n]*\\):" ":" from_tree "${out}")
  run(0 --list ${csv} ${json})
  string(REGEX REPLACE " \\([^\n]*\\.(csv|json)[^\n]*\\):" ":" from_files "${out}")
  if(NOT from_tree STREQUAL from_files)
    message(FATAL_ERROR "the directory's runs differ from its files':\n${from_tree}\n---\n${from_files}")
  endif()

  # --maxfail: the report up to the Nth failed run, the same for any --jobs, and what was not run.
  set(all ${samples} ${CASES}/bad/corrupt.csv ${CASES}/bad/corrupt.json)
  run(1 --maxfail 3 --jobs 1 ${all})
  set(one "${out}")
  run(1 --maxfail 3 --jobs 3 ${all})
  if(NOT out STREQUAL one)
    message(FATAL_ERROR "--maxfail's report with --jobs 3 differs from --jobs 1:\n${out}\n---\n${one}")
  endif()
  string(REGEX MATCHALL "\n(FAIL|UNREADABLE) " failures "\n${out}")
  list(LENGTH failures count)
  if(NOT count EQUAL 3)
    message(FATAL_ERROR "--maxfail 3 reported ${count} failures:\n${out}")
  endif()
  expect("${out}" "\nSTOPPED after 3 failed runs \\(--maxfail 3\\): [1-9][0-9]* of [0-9]+ runs not run\n")
  run(2 --maxfail 0 ${csv})
  expect("${err}" "--maxfail wants a count")

  # --shard by size: of two shards, the two largest runs of the sample suite (9.0e6 and 4.2e6
  # elements) go one to each.
  foreach(k 1 2)
    run(0 --shard ${k}/2 --list ${samples})
    set(shard${k} "${out}")
  endforeach()
  set(shards_of_large "")
  foreach(large "test_mse_loss_out_large_parallel#7" "test_mse_loss_out_large_parallel#8")
    foreach(k 1 2)
      if(shard${k} MATCHES "(^|\n)${large} ")
        list(APPEND shards_of_large ${k})
      endif()
    endforeach()
  endforeach()
  if(NOT shards_of_large STREQUAL "1;2" AND NOT shards_of_large STREQUAL "2;1")
    message(FATAL_ERROR "the two largest runs are in shards ${shards_of_large}, not one each:\n${shard1}\n---\n${shard2}")
  endif()

  # What --dump-all writes, compare mode reads back: every output, bf16 too, judged bit for bit.
  run(0 --dump-all ${WORK_DIR}/dump ${samples})
  file(GLOB bf16_outputs ${WORK_DIR}/dump/*bf16*.actual.npy)
  if(NOT bf16_outputs)
    message(FATAL_ERROR "no bf16 output among the dumps")
  endif()
  run(0 --compare ${WORK_DIR}/dump --method binary ${samples})
  expect_last_line("${out}" "${sample_summary}")

else()
  message(FATAL_ERROR "unknown MODE ${MODE}")
endif()
