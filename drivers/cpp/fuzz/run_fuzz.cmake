# One short fuzz run (a ctest test of the fuzz build): FUZZER for SECONDS seconds, seeded
# from CORPUS (never written to), new inputs and any crash input in SCRATCH (emptied first).
file(REMOVE_RECURSE ${SCRATCH})
file(MAKE_DIRECTORY ${SCRATCH}/new)
if(NOT IS_DIRECTORY ${CORPUS})
  message(FATAL_ERROR "no corpus at ${CORPUS}")
endif()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=10 -rss_limit_mb=2048
          -print_final_stats=1 -artifact_prefix=${SCRATCH}/ ${SCRATCH}/new ${CORPUS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${FUZZER} failed (${rc}); the input is in ${SCRATCH}")
endif()
