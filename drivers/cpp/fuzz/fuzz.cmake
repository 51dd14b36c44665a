# The fuzz targets (included by ../CMakeLists.txt when WIREBENCH_FUZZ is on; README.md).
# One executable per target; each is a ctest test that fuzzes for a few seconds from its
# committed corpus (corpus/<target>, read only: new inputs go to a scratch directory in the
# build tree).
if(NOT "rpc" IN_LIST WB_SUITES OR NOT "codec" IN_LIST WB_SUITES)
  message(FATAL_ERROR "WIREBENCH_FUZZ needs the rpc and codec suites in WB_SUITES")
endif()
enable_testing()
set(WB_FUZZ_SECONDS 5 CACHE STRING "seconds each fuzz target runs in ctest")
set(WB_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

# target name, source, library name
set(WB_FUZZ_TARGETS
  "rpc_capnp\;rpc_server.cpp\;capnp"
  "rpc_protobuf\;rpc_server.cpp\;protobuf"
  "rpc_null\;rpc_server.cpp\;null"
  "codec_null\;codec_decode.cpp\;null"
  "codec_rapidjson\;codec_decode.cpp\;rapidjson"
  "codec_simdjson\;codec_decode.cpp\;simdjson"
  "codec_nlohmann_json\;codec_decode.cpp\;nlohmann-json"
  "codec_protobuf\;codec_decode.cpp\;protobuf"
  "codec_capnp\;codec_decode.cpp\;capnp"
  "codec_flatbuffers\;codec_decode.cpp\;flatbuffers"
  "codec_msgpack\;codec_decode.cpp\;msgpack-cxx")

foreach(entry IN LISTS WB_FUZZ_TARGETS)
  list(GET entry 0 name)
  list(GET entry 1 source)
  list(GET entry 2 lib)
  add_executable(fuzz_${name} ${WB_FUZZ_DIR}/${source})
  target_link_libraries(fuzz_${name} PRIVATE wirebench_core)
  target_compile_options(fuzz_${name} PRIVATE ${WARNINGS})
  target_compile_definitions(fuzz_${name} PRIVATE WB_FUZZ_LIB="${lib}")
  target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
  add_test(NAME fuzz/${name}
    COMMAND ${CMAKE_COMMAND} -DFUZZER=$<TARGET_FILE:fuzz_${name}>
            -DCORPUS=${WB_FUZZ_DIR}/corpus/${name}
            -DSCRATCH=${CMAKE_CURRENT_BINARY_DIR}/fuzz-scratch/${name}
            -DSECONDS=${WB_FUZZ_SECONDS} -P ${WB_FUZZ_DIR}/run_fuzz.cmake)
endforeach()

# The seed writer (seeds.cpp): `wirebench-fuzz-seeds DIR` remakes the seed inputs.
add_executable(wirebench-fuzz-seeds ${WB_FUZZ_DIR}/seeds.cpp)
target_link_libraries(wirebench-fuzz-seeds PRIVATE wirebench_core)
target_compile_options(wirebench-fuzz-seeds PRIVATE ${WARNINGS})
