# Unit tests of the schedule policies (round-robin, random, PCT).
add_executable(chaos_tests chaos/SchedulePolicyTest.cc)
target_link_libraries(chaos_tests PRIVATE hermit_tracer hermit_formats GTest::gtest_main)
gtest_discover_tests(chaos_tests DISCOVERY_TIMEOUT 60)
