# Unit tests of the virtualization modules (tracer/virt/ and tracer/Virtualizer).
add_executable(tracer_virt_tests
  virt/VirtualClockTest.cc
  virt/AlarmTimersTest.cc
  virt/IntervalTimerTest.cc
  virt/PosixTimersTest.cc
  virt/TimerFdsTest.cc
  virt/EpochTest.cc
  virt/GuestRandomTest.cc
  virt/CpuidTableTest.cc
  virt/InstructionEmulatorTest.cc
  virt/DirectoryListingTest.cc
  virt/StatRewriterTest.cc
  virt/FileTimesTest.cc
  virt/VdsoPatcherTest.cc
  virt/AuxiliaryVectorTest.cc
  virt/HostProbeTest.cc
  virt/VirtualFilesTest.cc
  virt/GuestPathLookupTest.cc)
target_link_libraries(tracer_virt_tests PRIVATE hermit_tracer GTest::gtest_main)
gtest_discover_tests(tracer_virt_tests DISCOVERY_TIMEOUT 60)
