# The syscall table, its output ranges, the strace formatter (pure code over buffers) and the strace
# printer on a real guest.
add_executable(tracer_syscall_tests SyscallTableTest.cc SyscallFormatterTest.cc StraceInterceptorTest.cc)
target_link_libraries(tracer_syscall_tests PRIVATE hermit_tracer GTest::gtest_main)
target_compile_definitions(tracer_syscall_tests PRIVATE HERMIT_GUEST_DIR="${HERMIT_GUEST_DIR}")
add_dependencies(tracer_syscall_tests guest_syscalls_strace)
gtest_discover_tests(tracer_syscall_tests DISCOVERY_TIMEOUT 60)
