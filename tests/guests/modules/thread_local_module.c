// A module a guest loads with dlopen: its thread-local variable lives in a TLS block glibc allocates at the
// thread's first use, not at a fixed offset from the thread pointer.
__thread long module_counter = 5;

void module_count(long value) {
    module_counter += value;
}
