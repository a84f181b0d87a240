# Chaos scheduling and seed search driven through the real hermit binary on examples/order_violation.
add_executable(chaos_integration_tests ChaosIntegrationTest.cc)
target_link_libraries(chaos_integration_tests PRIVATE hermit_test_process GTest::gtest_main
  nlohmann_json::nlohmann_json)
add_dependencies(chaos_integration_tests hermit example_order_violation)
gtest_discover_tests(chaos_integration_tests DISCOVERY_TIMEOUT 60)
