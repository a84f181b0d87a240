#include "CapturedProcess.h"

#include "formats/Error.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hermit::replay {

namespace {

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (auto& text : strings) {
        pointers.push_back(text.data());
    }
    pointers.push_back(nullptr);
    return pointers;
}

void close_if_open(int& fd) {
    if (fd >= 0) {
        close(fd);
        fd = -1;
    }
}

} // namespace

CapturedProcess::CapturedProcess(const std::vector<std::string>& argv) {
    const std::string program = argv.empty() ? std::string() : argv.front();
    int stdout_pipe[2], stderr_pipe[2];
    if (pipe2(stdout_pipe, O_CLOEXEC) != 0) {
        throw Error(ErrorCode::SearchRunFailed, program, std::strerror(errno));
    }
    if (pipe2(stderr_pipe, O_CLOEXEC) != 0) {
        int saved = errno;
        close(stdout_pipe[0]);
        close(stdout_pipe[1]);
        throw Error(ErrorCode::SearchRunFailed, program, std::strerror(saved));
    }
    std::vector<std::string> arguments = argv;
    std::vector<char*> argument_pointers = c_strings(arguments);
    pid_ = fork();
    if (pid_ == 0) {
        int null_fd = open("/dev/null", O_RDONLY);
        dup2(null_fd, 0);
        dup2(stdout_pipe[1], 1);
        dup2(stderr_pipe[1], 2);
        execv(argument_pointers[0], argument_pointers.data());
        _exit(127);
    }
    int fork_error = errno;
    close(stdout_pipe[1]);
    close(stderr_pipe[1]);
    stdout_fd_ = stdout_pipe[0];
    stderr_fd_ = stderr_pipe[0];
    if (pid_ < 0) {
        close_if_open(stdout_fd_);
        close_if_open(stderr_fd_);
        throw Error(ErrorCode::SearchRunFailed, program, std::strerror(fork_error));
    }
    fcntl(stdout_fd_, F_SETFL, O_NONBLOCK);
    fcntl(stderr_fd_, F_SETFL, O_NONBLOCK);
    // Without a pidfd the caller's poll would not wake at exit; service() still reaps on its next call.
    pidfd_ = static_cast<int>(syscall(SYS_pidfd_open, pid_, 0));
}

CapturedProcess::~CapturedProcess() {
    if (!finished_ && pid_ > 0) {
        ::kill(pid_, SIGKILL);
        waitpid(pid_, nullptr, 0);
    }
    close_if_open(stdout_fd_);
    close_if_open(stderr_fd_);
    close_if_open(pidfd_);
}

std::vector<int> CapturedProcess::poll_descriptors() const {
    std::vector<int> descriptors;
    for (int fd : {stdout_fd_, stderr_fd_, pidfd_}) {
        if (fd >= 0) {
            descriptors.push_back(fd);
        }
    }
    return descriptors;
}

void CapturedProcess::drain(int& fd, std::string& text) {
    char buffer[65536];
    while (fd >= 0) {
        ssize_t count = read(fd, buffer, sizeof buffer);
        if (count > 0) {
            text.append(buffer, static_cast<size_t>(count));
        } else if (count < 0 && errno == EINTR) {
            continue;
        } else {
            if (count == 0 || errno != EAGAIN) {
                close_if_open(fd);
            }
            return;
        }
    }
}

void CapturedProcess::service() {
    if (finished_) {
        return;
    }
    drain(stdout_fd_, stdout_text_);
    drain(stderr_fd_, stderr_text_);
    int wait_status = 0;
    if (waitpid(pid_, &wait_status, WNOHANG) != pid_) {
        return;
    }
    // Everything the child wrote before exiting is in the pipes now; a descendant that still holds them
    // open must not keep the run alive.
    drain(stdout_fd_, stdout_text_);
    drain(stderr_fd_, stderr_text_);
    close_if_open(stdout_fd_);
    close_if_open(stderr_fd_);
    close_if_open(pidfd_);
    exit_status_ = WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
    finished_ = true;
}

void CapturedProcess::kill() {
    if (!finished_ && pid_ > 0) {
        ::kill(pid_, SIGKILL);
    }
}

} // namespace hermit::replay
