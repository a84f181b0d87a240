#include "HermitProcess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

extern char** environ;

namespace hermit::testing {

namespace {

std::vector<std::string> merged_environment(const std::vector<std::string>& extra_env) {
    std::map<std::string, std::string> variables;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        std::string text = *entry;
        variables[text.substr(0, text.find('='))] = text;
    }
    for (const auto& text : extra_env) {
        variables[text.substr(0, text.find('='))] = text;
    }
    std::vector<std::string> result;
    for (auto& [name, text] : variables) {
        result.push_back(text);
    }
    return result;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (auto& text : strings) {
        pointers.push_back(text.data());
    }
    pointers.push_back(nullptr);
    return pointers;
}

double now_seconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

int shell_status(int wait_status) {
    if (WIFEXITED(wait_status)) {
        return WEXITSTATUS(wait_status);
    }
    return 128 + WTERMSIG(wait_status);
}

} // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text,
                          int timeout_seconds, const std::vector<std::string>& extra_env) {
    int stdin_pipe[2], stdout_pipe[2], stderr_pipe[2];
    if (pipe2(stdin_pipe, O_CLOEXEC) != 0 || pipe2(stdout_pipe, O_CLOEXEC) != 0 ||
        pipe2(stderr_pipe, O_CLOEXEC) != 0) {
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    std::vector<std::string> arguments = argv;
    std::vector<std::string> environment = merged_environment(extra_env);
    std::vector<char*> argument_pointers = c_strings(arguments);
    std::vector<char*> environment_pointers = c_strings(environment);

    pid_t child = fork();
    if (child < 0) {
        throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        dup2(stdin_pipe[0], 0);
        dup2(stdout_pipe[1], 1);
        dup2(stderr_pipe[1], 2);
        signal(SIGPIPE, SIG_DFL);
        execvpe(argument_pointers[0], argument_pointers.data(), environment_pointers.data());
        _exit(127);
    }
    close(stdin_pipe[0]);
    close(stdout_pipe[1]);
    close(stderr_pipe[1]);
    // A child that exits without reading stdin must not kill the test with SIGPIPE.
    signal(SIGPIPE, SIG_IGN);
    fcntl(stdin_pipe[1], F_SETFL, O_NONBLOCK);

    ProcessResult result;
    size_t stdin_written = 0;
    int stdin_fd = stdin_pipe[1];
    if (stdin_text.empty()) {
        close(stdin_fd);
        stdin_fd = -1;
    }
    int stdout_fd = stdout_pipe[0];
    int stderr_fd = stderr_pipe[0];
    const double deadline = now_seconds() + timeout_seconds;
    bool timed_out = false;
    while (stdout_fd >= 0 || stderr_fd >= 0) {
        double remaining = deadline - now_seconds();
        if (remaining <= 0) {
            timed_out = true;
            kill(child, SIGKILL);
            break;
        }
        pollfd fds[3] = {{stdout_fd, POLLIN, 0}, {stderr_fd, POLLIN, 0}, {stdin_fd, POLLOUT, 0}};
        int ready = poll(fds, 3, static_cast<int>(remaining * 1000) + 1);
        if (ready < 0 && errno != EINTR) {
            break;
        }
        char buffer[65536];
        for (int index = 0; index < 2; ++index) {
            if (fds[index].fd >= 0 && (fds[index].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
                ssize_t count = read(fds[index].fd, buffer, sizeof buffer);
                if (count > 0) {
                    (index == 0 ? result.stdout_text : result.stderr_text).append(buffer, count);
                } else if (count == 0 || errno != EINTR) {
                    close(fds[index].fd);
                    (index == 0 ? stdout_fd : stderr_fd) = -1;
                }
            }
        }
        if (stdin_fd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
            ssize_t count =
                write(stdin_fd, stdin_text.data() + stdin_written, stdin_text.size() - stdin_written);
            if (count > 0) {
                stdin_written += count;
            }
            if ((count < 0 && errno != EAGAIN && errno != EINTR) || stdin_written == stdin_text.size()) {
                close(stdin_fd);
                stdin_fd = -1;
            }
        }
    }
    for (int fd : {stdin_fd, stdout_fd, stderr_fd}) {
        if (fd >= 0) {
            close(fd);
        }
    }
    int wait_status = 0;
    // The child may close its output and still run: keep enforcing the deadline.
    while (waitpid(child, &wait_status, WNOHANG) == 0) {
        if (now_seconds() > deadline) {
            timed_out = true;
            kill(child, SIGKILL);
            waitpid(child, &wait_status, 0);
            break;
        }
        usleep(1000);
    }
    result.exit_status = timed_out ? -1 : shell_status(wait_status);
    return result;
}

std::string hermit_binary() {
    return HERMIT_BINARY;
}

long ptrace_stops(const ProcessResult& run) {
    const size_t at = run.stderr_text.find("guest done: ");
    return at == std::string::npos ? -1 : std::stol(run.stderr_text.substr(at + 12));
}

long notifications(const ProcessResult& run) {
    const size_t at = run.stderr_text.find(" ptrace stops, ");
    return at == std::string::npos ? -1 : std::stol(run.stderr_text.substr(at + 15));
}

std::string guest_path(const std::string& name) {
    return std::string(HERMIT_GUEST_DIR) + "/" + name;
}

} // namespace hermit::testing
