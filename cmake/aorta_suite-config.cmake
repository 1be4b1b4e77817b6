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
#                        [SUITE aorta_distributed] [OUTPUT_DIR dir] [TIMEOUT seconds] [ARGS ...])
#
# ctest must never kill a run mid-benchmark (no reports, a held lock): TIMEOUT defaults
# to the longest a run of CONFIG may take, read from its timeout_seconds at configure
# time. Runs that share a node must not overlap under `ctest -j` (the second would be
# refused at the node's lock): each node of CLUSTER (localhost without one) and the
# config's aorta_path are RESOURCE_LOCKs.
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

# The longest a run of `config` may take, as its checkout lock's lifetime counts it
# (lib/job/checkout_lock.cc): four commands of timeout_seconds (build, benchmark,
# analysis, collection) and an hour for everything else. CVS's 3600 s when the config
# does not say or cannot be read now.
function(_aorta_suite_run_limit config out)
  set(seconds 3600)
  if(config AND EXISTS "${config}")
    file(READ "${config}" text)
    string(JSON value ERROR_VARIABLE missing GET "${text}" timeout_seconds)
    if(NOT missing AND value MATCHES "^[1-9][0-9]*$")
      set(seconds ${value})
    endif()
  elseif(config)
    message(WARNING "aorta_suite_add_test: ${config} cannot be read now; TIMEOUT assumes timeout_seconds 3600 "
                    "(give TIMEOUT to say otherwise)")
  endif()
  math(EXPR limit "4 * ${seconds} + 3600")
  set(${out} ${limit} PARENT_SCOPE)
endfunction()

# What the run holds while it runs: every node of `cluster` (its node_dict keys;
# localhost without a cluster file) and the config's aorta_path as written.
function(_aorta_suite_locks config cluster out)
  set(locks)
  if(cluster AND EXISTS "${cluster}")
    file(READ "${cluster}" text)
    string(JSON count ERROR_VARIABLE bad LENGTH "${text}" node_dict)
    if(NOT bad AND count GREATER 0)
      math(EXPR last "${count} - 1")
      foreach(i RANGE ${last})
        string(JSON node MEMBER "${text}" node_dict ${i})
        list(APPEND locks "aorta_suite_node:${node}")
      endforeach()
    endif()
  elseif(cluster)
    message(WARNING "aorta_suite_add_test: ${cluster} cannot be read now; ctest -j may overlap runs on its nodes")
  else()
    list(APPEND locks "aorta_suite_node:localhost")
  endif()
  if(config AND EXISTS "${config}")
    file(READ "${config}" text)
    string(JSON path ERROR_VARIABLE bad GET "${text}" aorta_path)
    if(NOT bad)
      list(APPEND locks "aorta_suite_path:${path}")
    endif()
  endif()
  set(${out} ${locks} PARENT_SCOPE)
endfunction()

function(aorta_suite_add_test)
  if(CMAKE_VERSION VERSION_LESS 3.19)  # string(JSON) reads the config and cluster files
    message(FATAL_ERROR "aorta_suite_add_test needs CMake 3.19 or later (this is ${CMAKE_VERSION})")
  endif()
  cmake_parse_arguments(PARSE_ARGV 0 arg "" "NAME;CONFIG;CLUSTER;SUITE;OUTPUT_DIR;TIMEOUT" "ARGS")
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
  # Read where the test runs (its working folder, the build folder), as the suite will.
  foreach(file IN ITEMS CONFIG CLUSTER)
    if(arg_${file})
      get_filename_component(read_${file} "${arg_${file}}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
    endif()
  endforeach()
  if(NOT DEFINED arg_TIMEOUT)  # TIMEOUT 0 is ctest's "no limit", kept as given
    _aorta_suite_run_limit("${read_CONFIG}" arg_TIMEOUT)
  endif()
  _aorta_suite_locks("${read_CONFIG}" "${read_CLUSTER}" locks)
  set_tests_properties(${arg_NAME} PROPERTIES LABELS aorta_suite TIMEOUT ${arg_TIMEOUT} RESOURCE_LOCK "${locks}")
  # An edited config or cluster file re-reads both at the next build.
  foreach(file IN ITEMS ${read_CONFIG} ${read_CLUSTER})
    if(EXISTS "${file}")
      set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${file}")
    endif()
  endforeach()
endfunction()
