# Unit tests of seed search and the Kubernetes Job emitter.
add_executable(search_tests search/SeedSearchTest.cc search/KubernetesJobTest.cc
  search/ForcedSchedulePolicyTest.cc)
target_compile_definitions(search_tests PRIVATE SEARCH_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/search")
target_link_libraries(search_tests PRIVATE hermit_replay hermit_formats nlohmann_json::nlohmann_json GTest::gtest_main)
gtest_discover_tests(search_tests DISCOVERY_TIMEOUT 60)
