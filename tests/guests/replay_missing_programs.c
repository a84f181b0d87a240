// Tries to execute programs that are not there, argv[2] times each, as a shell trying each directory of
// PATH does: a name in a directory missing from the scratch directory argv[1] (ENOENT) and one under the
// guest's own executable, a regular file (ENOTDIR).
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char** argv) {
    if (argc < 3) {
        return 2;
    }
    char missing[4096], under_file[4096];
    snprintf(missing, sizeof missing, "%s/bin/program", argv[1]);
    snprintf(under_file, sizeof under_file, "%s/program", argv[0]);
    char* const arguments[] = {missing, NULL};
    const int rounds = atoi(argv[2]);
    int enoent = 0, enotdir = 0;
    for (int round = 0; round < rounds; round++) {
        execv(missing, arguments);
        enoent += errno == ENOENT;
        execv(under_file, arguments);
        enotdir += errno == ENOTDIR;
    }
    printf("%d rounds: ENOENT %d, ENOTDIR %d\n", rounds, enoent, enotdir);
    return 0;
}
