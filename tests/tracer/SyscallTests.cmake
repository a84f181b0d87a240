# Unit tests of the syscall table, its output ranges and the strace formatter (no traced process needed).
add_executable(tracer_syscall_tests SyscallTableTest.cc SyscallFormatterTest.cc)
target_link_libraries(tracer_syscall_tests PRIVATE hermit_tracer GTest::gtest_main)
gtest_discover_tests(tracer_syscall_tests DISCOVERY_TIMEOUT 60)
