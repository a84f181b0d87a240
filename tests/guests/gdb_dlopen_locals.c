// Guest for thread-local variables of a module loaded with dlopen (argv[1]: its path): each of two threads
// adds to the module's __thread variable, and the worker reaches its mark with its own value.
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static void (*module_count)(long);

__attribute__((noinline)) void module_mark(void) {
    __asm__ volatile("" ::: "memory");
}

static void* worker(void* argument) {
    module_count(30);
    module_mark();
    return argument;
}

int main(int argc, char** argv) {
    void* module = argc > 1 ? dlopen(argv[1], RTLD_NOW) : NULL;
    if (module == NULL) {
        fprintf(stderr, "cannot load the module: %s\n", dlerror());
        return 1;
    }
    module_count = (void (*)(long))dlsym(module, "module_count");
    module_count(1);
    pthread_t thread;
    pthread_create(&thread, NULL, worker, NULL);
    pthread_join(thread, NULL);
    module_mark();
    return 0;
}
