#include "DebugBridge.h"

#include "formats/Error.h"

#include <signal.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

namespace hermit::replay {

namespace {

// How often the server looks at gdb's connection while the guest runs.
constexpr std::chrono::milliseconds kInterruptPoll{20};

} // namespace

DebugBridge::DebugBridge() : stop_requests_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
    if (stop_requests_.get() < 0) {
        throw Error(ErrorCode::TracerInternal, std::string("eventfd: ") + std::strerror(errno));
    }
}

DebugBridge::~DebugBridge() {
    if (tracer_.joinable()) {
        abort();
    }
}

bool DebugBridge::start(std::function<int()> run) {
    // The Session takes SIGCHLD and termination signals with sigwaitinfo on its own thread: no other
    // thread may take them first, so they are blocked here before the tracer thread inherits the mask.
    sigset_t signals;
    sigemptyset(&signals);
    for (int signal_number : {SIGCHLD, SIGINT, SIGTERM, SIGHUP}) {
        sigaddset(&signals, signal_number);
    }
    pthread_sigmask(SIG_BLOCK, &signals, nullptr);
    tracer_ = std::thread([this, run = std::move(run)] {
        std::optional<int> status;
        std::exception_ptr error;
        try {
            status = run();
        } catch (const DebugRunAborted&) {
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(mutex_);
        exit_status_ = status;
        error_ = error;
        state_ = State::Finished;
        changed_.notify_all();
    });
    std::unique_lock lock(mutex_);
    return wait_while_running(lock);
}

bool DebugBridge::wait_while_running(std::unique_lock<std::mutex>& lock) {
    changed_.wait(lock, [this] { return state_ != State::Running; });
    return state_ == State::Stopped;
}

void DebugBridge::call(const std::function<void()>& work) {
    std::unique_lock lock(mutex_);
    if (state_ != State::Stopped) {
        return;
    }
    work_done_ = false;
    work_.push_back(work);
    changed_.notify_all();
    changed_.wait(lock, [this] { return work_done_ || state_ == State::Finished; });
}

bool DebugBridge::resume(const std::function<bool()>& interrupted) {
    std::unique_lock lock(mutex_);
    if (state_ != State::Stopped) {
        return false;
    }
    resume_ = true;
    state_ = State::Running;
    changed_.notify_all();
    bool requested = false;
    while (!changed_.wait_for(lock, kInterruptPoll, [this] { return state_ != State::Running; })) {
        if (requested) {
            continue;
        }
        lock.unlock();
        requested = interrupted();
        lock.lock();
        if (requested && state_ == State::Running) {
            request_stop();
        }
    }
    return state_ == State::Stopped;
}

void DebugBridge::request_stop() {
    const uint64_t one = 1;
    if (write(stop_requests_.get(), &one, sizeof one) != sizeof one) {
        throw Error(ErrorCode::TracerInternal, std::string("eventfd write: ") + std::strerror(errno));
    }
}

void DebugBridge::release() {
    std::lock_guard lock(mutex_);
    if (state_ == State::Stopped) {
        resume_ = true;
        state_ = State::Running;
        changed_.notify_all();
    }
}

void DebugBridge::abort() {
    {
        std::lock_guard lock(mutex_);
        abort_ = true;
        if (state_ == State::Running) {
            request_stop(); // its stop throws DebugRunAborted
        }
        changed_.notify_all();
    }
    join();
}

void DebugBridge::join() {
    if (tracer_.joinable()) {
        tracer_.join();
    }
}

std::optional<int> DebugBridge::exit_status() const {
    std::lock_guard lock(mutex_);
    if (error_) {
        std::rethrow_exception(error_);
    }
    return exit_status_;
}

void DebugBridge::serve_stop() {
    std::unique_lock lock(mutex_);
    state_ = State::Stopped;
    changed_.notify_all();
    for (;;) {
        changed_.wait(lock, [this] { return abort_ || resume_ || !work_.empty(); });
        if (abort_) {
            throw DebugRunAborted{};
        }
        if (!work_.empty()) {
            std::function<void()> work = std::move(work_.front());
            work_.pop_front();
            lock.unlock();
            work();
            lock.lock();
            work_done_ = true;
            changed_.notify_all();
            continue;
        }
        resume_ = false;
        return;
    }
}

} // namespace hermit::replay
