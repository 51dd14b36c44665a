# The fuzz build (included by ../CMakeLists.txt when WIREBENCH_FUZZ is on; README.md): one
# libFuzzer executable for every target, `wirebench-fuzz --target=NAME`, and the seed writer
# that lists the targets from the registries. The targets are not listed here: ctest asks
# the seed writer for them (tests.cmake) and runs each briefly with run.sh.
if(NOT "rpc" IN_LIST WB_SUITES OR NOT "codec" IN_LIST WB_SUITES)
  message(FATAL_ERROR "WIREBENCH_FUZZ needs the rpc and codec suites in WB_SUITES")
endif()
enable_testing()
set(WB_FUZZ_SECONDS 5 CACHE STRING "seconds each fuzz target runs in ctest")
set(WB_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

add_library(wirebench_fuzz_targets STATIC ${WB_FUZZ_DIR}/targets.cpp
            ${WB_FUZZ_DIR}/codec_decode.cpp ${WB_FUZZ_DIR}/rpc_server.cpp)
target_link_libraries(wirebench_fuzz_targets PUBLIC wirebench_core)
target_compile_options(wirebench_fuzz_targets PRIVATE ${WARNINGS})

add_executable(wirebench-fuzz ${WB_FUZZ_DIR}/fuzzer.cpp)
target_link_libraries(wirebench-fuzz PRIVATE wirebench_fuzz_targets)
target_compile_options(wirebench-fuzz PRIVATE ${WARNINGS})
target_link_options(wirebench-fuzz PRIVATE -fsanitize=fuzzer)

add_executable(wirebench-fuzz-seeds ${WB_FUZZ_DIR}/seeds.cpp)
target_link_libraries(wirebench-fuzz-seeds PRIVATE wirebench_fuzz_targets)
target_compile_options(wirebench-fuzz-seeds PRIVATE ${WARNINGS})

# One ctest test per target, `fuzz/<target>`, made when ctest runs (tests.cmake).
set(WB_FUZZ_TESTS ${CMAKE_CURRENT_BINARY_DIR}/fuzz_tests.cmake)
file(GENERATE OUTPUT ${WB_FUZZ_TESTS} CONTENT
"set(SEEDS \"$<TARGET_FILE:wirebench-fuzz-seeds>\")
set(RUN \"${WB_FUZZ_DIR}/run.sh\")
set(BUILD \"${CMAKE_CURRENT_BINARY_DIR}\")
set(SECONDS \"${WB_FUZZ_SECONDS}\")
include(\"${WB_FUZZ_DIR}/tests.cmake\")
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${WB_FUZZ_TESTS})
