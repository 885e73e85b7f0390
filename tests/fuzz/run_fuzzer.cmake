# Runs api_fuzzer as the fuzz_api test does: a fresh writable corpus directory (a copy of the
# checked-in seeds, where new inputs go) first, the seeds themselves second, for SECONDS seconds.
#   cmake -DFUZZER=<api_fuzzer> -DSEEDS=<tests/fuzz/corpus> -DWORK_DIR=<scratch> -DSECONDS=<n> -P this
# A violation (the fuzzer aborts), a sanitizer report, a leak or a timeout fails the test; the
# crashing input is left in WORK_DIR. The final statistics are printed either way.
foreach(var FUZZER SEEDS WORK_DIR SECONDS)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/corpus)
file(GLOB seeds ${SEEDS}/*)
file(COPY ${seeds} DESTINATION ${WORK_DIR}/corpus)
execute_process(
  COMMAND ${FUZZER} ${WORK_DIR}/corpus ${SEEDS} -max_total_time=${SECONDS} -timeout=60 -print_final_stats=1
          -artifact_prefix=${WORK_DIR}/
  RESULT_VARIABLE rc OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "api_fuzzer exited with ${rc}\n${stdout}\n${stderr}")
endif()
# The last progress line and the statistics.
string(REGEX MATCHALL "[^\n]*(pulse|DONE|Done)[^\n]*|stat::[^\n]*" summary "${stderr}")
list(JOIN summary "\n" summary)
message("${summary}")
