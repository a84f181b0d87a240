# Unit tests of replay/ (helper "replay"): the recorded-syscall table, the recorded schedule policy and
# the Recorder on a real guest, the names a replayed guest made, the debug registers of watchpoints.
add_executable(replay_tests
  ${CMAKE_CURRENT_LIST_DIR}/RecordedSyscallsTest.cc
  ${CMAKE_CURRENT_LIST_DIR}/RecordedSchedulePolicyTest.cc
  ${CMAKE_CURRENT_LIST_DIR}/RecorderTest.cc
  ${CMAKE_CURRENT_LIST_DIR}/GuestFileIoTest.cc
  ${CMAKE_CURRENT_LIST_DIR}/MadeNamesTest.cc
  ${CMAKE_CURRENT_LIST_DIR}/VerifyTest.cc
  ${CMAKE_CURRENT_LIST_DIR}/DebugRegistersTest.cc)
target_link_libraries(replay_tests PRIVATE hermit_replay hermit_replay_debug GTest::gtest_main)
target_compile_definitions(replay_tests PRIVATE HERMIT_GUEST_DIR="${HERMIT_GUEST_DIR}")
add_dependencies(replay_tests guest_replay_inputs guest_replay_file_io)
gtest_discover_tests(replay_tests DISCOVERY_TIMEOUT 60)
