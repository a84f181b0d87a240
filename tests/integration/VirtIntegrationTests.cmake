# Integration tests of the virtualization (helper "virt"): real guests under the built hermit.
add_executable(virt_integration_tests VirtIntegrationTest.cc)
target_link_libraries(virt_integration_tests PRIVATE hermit_test_process hermit_tracer GTest::gtest_main)
add_dependencies(virt_integration_tests hermit guest_virt_time guest_virt_stat guest_replay_urandom guest_virt_clock_spin)
gtest_discover_tests(virt_integration_tests DISCOVERY_TIMEOUT 60)
