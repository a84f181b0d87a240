// Randomness: getrandom, reads of /dev/urandom and /dev/random, the AT_RANDOM bytes of the auxiliary vector
// and the addresses ASLR would move (the program, a library, the heap, an anonymous mapping, the stack).
// Natively every line changes from run to run; under hermit they are fixed for a given --seed, and the
// random bytes (not the addresses) change with another seed.
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

static void print_hex(const char* name, const unsigned char* bytes, size_t length) {
    printf("%s ", name);
    for (size_t index = 0; index < length; ++index) {
        printf("%02x", bytes[index]);
    }
    printf("\n");
}

static void print_device(const char* path) {
    unsigned char bytes[16] = {0};
    const int fd = open(path, O_RDONLY);
    if (fd < 0 || read(fd, bytes, sizeof bytes) != (ssize_t)sizeof bytes) {
        printf("%s unreadable\n", path);
    } else {
        print_hex(path, bytes, sizeof bytes);
    }
    if (fd >= 0) {
        close(fd);
    }
}

int main(void) {
    unsigned char bytes[16];
    getrandom(bytes, sizeof bytes, 0);
    print_hex("getrandom", bytes, sizeof bytes);
    getrandom(bytes, sizeof bytes, GRND_RANDOM);
    print_hex("getrandom_random", bytes, sizeof bytes);
    print_device("/dev/urandom");
    print_device("/dev/random");
    print_hex("at_random", (const unsigned char*)getauxval(AT_RANDOM), 16);
    srand(*(const unsigned*)getauxval(AT_RANDOM));
    printf("rand %d\n", rand());

    int local = 0;
    void* small = malloc(64);
    void* large = malloc(1 << 20);
    void* anonymous = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    printf("address main %p printf %p heap %p large %p mmap %p stack %p\n", (void*)main, (void*)printf, small,
           large, anonymous, (void*)&local);
    return 0;
}
