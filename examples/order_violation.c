// An order violation: the reader assumes the writer has already published global_str. Natively the
// writer nearly always wins, because it sleeps 1 ms and the reader 5 ms. Under hermit sleeps take no real
// time: a plain run ends the shorter sleep first on the virtual clock and passes, every time, and --chaos
// may end either sleep first (a loaded machine could), so some seeds run the reader first and fail.
//
//   hermit run -- ./order_violation                    # passes, every time
//   hermit search --seeds=1..200 -- ./order_violation  # lists the failing seeds
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const char* volatile global_str = NULL;

static void* writer(void* unused) {
    (void)unused;
    usleep(1000);
    global_str = "hello";
    return NULL;
}

static void* reader(void* unused) {
    (void)unused;
    usleep(5000);
    const char* text = global_str;
    if (text == NULL) {
        printf("ERROR! global_str is null at use.\n");
        exit(1);
    }
    printf("%s\n", text);
    return NULL;
}

int main(void) {
    pthread_t writer_thread, reader_thread;
    pthread_create(&writer_thread, NULL, writer, NULL);
    pthread_create(&reader_thread, NULL, reader, NULL);
    pthread_join(writer_thread, NULL);
    pthread_join(reader_thread, NULL);
    return 0;
}
