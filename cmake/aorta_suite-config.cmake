# find_package(aorta_suite) for a CMake project that runs the suite from ctest.
# The suite's stages are one session in one process, each on what the ones before it
# left, so it is one ctest test, never one per stage (gtest_discover_tests runs each
# test it lists alone, which the suite refuses). Installed as
# <prefix>/lib/cmake/aorta_suite/aorta_suite-config.cmake; relocatable.
#
#   find_package(aorta_suite REQUIRED)
#   aorta_suite_add_test(NAME aorta_distributed
#                        CONFIG ${CMAKE_SOURCE_DIR}/aorta_distributed.json
#                        CLUSTER ${CMAKE_SOURCE_DIR}/cluster.json
#                        [SUITE aorta_distributed] [OUTPUT_DIR dir] [ARGS ...])
#
# The test writes its JUnit file to ${CMAKE_CURRENT_BINARY_DIR}/<NAME>.xml and its
# run folders under OUTPUT_DIR (default ${CMAKE_CURRENT_BINARY_DIR}/<NAME>-results).
get_filename_component(_aorta_suite_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
# Nothing is defined for a prefix without the binary (a QUIET caller may test the target).
if(NOT EXISTS "${_aorta_suite_prefix}/bin/aorta_suite")
  set(aorta_suite_FOUND FALSE)
  set(aorta_suite_NOT_FOUND_MESSAGE "no aorta_suite binary at ${_aorta_suite_prefix}/bin/aorta_suite")
  return()
endif()
if(NOT TARGET aorta_suite::aorta_suite)
  add_executable(aorta_suite::aorta_suite IMPORTED)
  set_target_properties(aorta_suite::aorta_suite PROPERTIES IMPORTED_LOCATION "${_aorta_suite_prefix}/bin/aorta_suite")
endif()

function(aorta_suite_add_test)
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;CONFIG;CLUSTER;SUITE;OUTPUT_DIR" "ARGS")
  if(NOT arg_NAME)
    message(FATAL_ERROR "aorta_suite_add_test: NAME is required")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "aorta_suite_add_test(${arg_NAME}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  set(command aorta_suite::aorta_suite run)
  if(arg_SUITE)
    list(APPEND command ${arg_SUITE})
  endif()
  if(arg_CONFIG)
    list(APPEND command --config_file ${arg_CONFIG})
  endif()
  if(arg_CLUSTER)
    list(APPEND command --cluster_file ${arg_CLUSTER})
  endif()
  if(NOT arg_OUTPUT_DIR)
    set(arg_OUTPUT_DIR ${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}-results)
  endif()
  list(APPEND command --output_dir ${arg_OUTPUT_DIR} --junitxml ${CMAKE_CURRENT_BINARY_DIR}/${arg_NAME}.xml ${arg_ARGS})
  add_test(NAME ${arg_NAME} COMMAND ${command})
  # 1 is a failed gate or stage, 2 a usage or configuration error: both fail the test.
  set_tests_properties(${arg_NAME} PROPERTIES LABELS aorta_suite)
endfunction()
