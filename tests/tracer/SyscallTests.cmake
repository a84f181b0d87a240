# Unit tests of the syscall table, its output ranges and the strace formatter (no traced process needed).
add_executable(tracer_syscall_tests
  SyscallTableTest.cc
  SyscallFormatterTest.cc
  ${PROJECT_SOURCE_DIR}/tracer/SyscallTable.cc
  ${PROJECT_SOURCE_DIR}/tracer/SyscallTableData.cc
  ${PROJECT_SOURCE_DIR}/tracer/SyscallOutputs.cc
  ${PROJECT_SOURCE_DIR}/tracer/KernelNames.cc
  ${PROJECT_SOURCE_DIR}/tracer/SyscallFormatter.cc)
target_include_directories(tracer_syscall_tests PRIVATE ${PROJECT_SOURCE_DIR})
target_link_libraries(tracer_syscall_tests PRIVATE fmt::fmt GTest::gtest_main)
gtest_discover_tests(tracer_syscall_tests DISCOVERY_TIMEOUT 60)
