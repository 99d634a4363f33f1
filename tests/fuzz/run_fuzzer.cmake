# A fuzz.<target>.smoke test: a fresh corpus under WORK seeded with copies of SEEDS (globs
# separated by |), then FUZZER for SECONDS with DICT.  A crash, leak or timeout fails the test;
# the input that caused it is left in WORK as crash-*, leak-* or timeout-*.
string(REPLACE "|" ";" globs "${SEEDS}")
file(GLOB seeds ${globs})
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK}/corpus)
file(COPY ${seeds} DESTINATION ${WORK}/corpus)
execute_process(
  COMMAND ${FUZZER} ${WORK}/corpus -dict=${DICT} -max_total_time=${SECONDS} -timeout=10
          -rss_limit_mb=2048 -artifact_prefix=${WORK}/ -print_final_stats=1
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${rc}); the input is in ${WORK}")
endif()
