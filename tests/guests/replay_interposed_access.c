// access() of a name a preloaded library answers itself ("/magic", see interposer/access_interposer.c),
// of an existing directory and of a missing name. argv[1]: a directory.
#include <stdio.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc < 2) {
        return 2;
    }
    char missing[4096];
    snprintf(missing, sizeof missing, "%s/missing", argv[1]);
    printf("magic: %d\ndirectory: %d\nmissing: %d\n", access("/magic", F_OK), access(argv[1], F_OK),
           access(missing, F_OK));
    return 0;
}
