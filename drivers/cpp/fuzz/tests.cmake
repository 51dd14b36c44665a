# Read by ctest in the fuzz build (fuzz.cmake sets SEEDS, RUN, BUILD and SECONDS): one test
# per target that the registries have (`wirebench-fuzz-seeds --targets`), `fuzz/<target>`, a
# run of SECONDS seconds by run.sh, which prints the target's fuzz-executions line.
execute_process(COMMAND ${SEEDS} --targets RESULT_VARIABLE rc OUTPUT_VARIABLE listing)
if(rc EQUAL 0)
  string(REPLACE "\n" ";" lines "${listing}")
  foreach(line IN LISTS lines)
    if(NOT line STREQUAL "")
      string(REPLACE "\t" ";" fields "${line}")
      list(GET fields 0 target)
      add_test(fuzz/${target} ${RUN} ${SECONDS} ${target})
      set_tests_properties(fuzz/${target} PROPERTIES ENVIRONMENT WB_FUZZ_BUILD=${BUILD})
    endif()
  endforeach()
else()
  # Not built yet, or broken: a test that fails saying so.
  add_test(fuzz/targets ${SEEDS} --targets)
endif()
