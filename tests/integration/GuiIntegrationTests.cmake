# The GUI on real recordings made by the real hermit binary: chaos recordings for the schedule diff, the
# timeline and screenshot of a four-thread guest, and "Debug from here" serving gdb at an event.
add_executable(gui_integration_tests GuiIntegrationTest.cc ${PROJECT_SOURCE_DIR}/tests/gui/GuiTestMain.cc)
target_link_libraries(gui_integration_tests PRIVATE hermit_gui hermit_test_process Qt6::Test GTest::gtest)
target_compile_definitions(gui_integration_tests PRIVATE HERMIT_EXAMPLE_DIR="${CMAKE_BINARY_DIR}/examples")
add_dependencies(gui_integration_tests hermit example_order_violation guest_replay_threads guest_debug_threads)
gtest_discover_tests(gui_integration_tests DISCOVERY_TIMEOUT 60 PROPERTIES ENVIRONMENT "QT_QPA_PLATFORM=offscreen")
