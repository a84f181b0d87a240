// Sleeps are waits on the virtual clock that signals end as they would natively: a child killed while it
// sleeps dies of SIGKILL, a handled signal ends a sleep early with EINTR and the time left, and of two
// threads that sleep, the shorter sleep ends first.
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char order[3];
static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_usr1(int signal_number) {
    (void)signal_number;
}

static void* sleeper(void* argument) {
    const char* name = argument;
    usleep(name[0] == 'A' ? 5000 : 1000);
    pthread_mutex_lock(&order_lock);
    order[strlen(order)] = name[0];
    pthread_mutex_unlock(&order_lock);
    return NULL;
}

int main(void) {
    int status = 0;
    const pid_t killed = fork();
    if (killed == 0) {
        sleep(100);
        _exit(1);
    }
    usleep(1000);
    kill(killed, SIGKILL);
    waitpid(killed, &status, 0);
    printf("sleeping child: %s %d\n", WIFSIGNALED(status) ? "killed by" : "exited",
           WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    fflush(stdout); // before the next fork

    int pipe_fds[2];
    pipe(pipe_fds);
    const pid_t woken = fork();
    if (woken == 0) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = on_usr1;
        sigaction(SIGUSR1, &action, NULL);
        write(pipe_fds[1], "r", 1); // the handler is in place
        struct timespec request = {10, 0}, left = {0, 0};
        const int result = nanosleep(&request, &left);
        printf("interrupted sleep: %s, %ld s left\n", result == -1 && errno == EINTR ? "EINTR" : "finished",
               (long)left.tv_sec);
        fflush(stdout);
        _exit(0);
    }
    char ready;
    read(pipe_fds[0], &ready, 1);
    usleep(2000);
    kill(woken, SIGUSR1);
    waitpid(woken, &status, 0);

    pthread_t a, b;
    pthread_create(&a, NULL, sleeper, "A");
    pthread_create(&b, NULL, sleeper, "B");
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    printf("woke in order %s\n", order);
    return 0;
}
