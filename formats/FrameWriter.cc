#include "FrameWriter.h"

#include "EventCodec.h"

#include <pthread.h>
#include <signal.h>

#include <stdexcept>
#include <utility>

namespace hermit {

FrameWriter::FrameWriter(UniqueFd events, std::filesystem::path path, std::string recording)
    : events_(std::move(events)), path_(std::move(path)), recording_(std::move(recording)) {
    // Started now, before a Session pins the tracing thread and the guest to one CPU (tracer/Session.cc),
    // so that it keeps the CPUs hermit was given and compresses beside them. With every signal blocked:
    // they are the tracing thread's to read from its signalfd, and a thread that let SIGCHLD through would
    // take it from there.
    sigset_t every_signal;
    sigset_t previous;
    sigfillset(&every_signal);
    pthread_sigmask(SIG_SETMASK, &every_signal, &previous);
    try {
        thread_ = std::thread([this] { write_batches(); });
    } catch (...) {
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        throw;
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
}

FrameWriter::~FrameWriter() {
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void FrameWriter::submit(uint64_t first_index, std::vector<Event> batch, std::function<void()> before) {
    std::unique_lock lock(mutex_);
    if (stopping_) {
        throw std::logic_error("FrameWriter::submit after finish()");
    }
    changed_.wait(lock, [&] { return !waiting_ || failure_; });
    rethrow_failure();
    waiting_ = Batch{first_index, std::move(batch), std::move(before)};
    lock.unlock();
    changed_.notify_all();
}

void FrameWriter::drain() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return (!waiting_ && !writing_) || failure_; });
    rethrow_failure();
}

void FrameWriter::finish(uint64_t first_index, std::vector<Event> batch, std::function<void()> before) {
    drain();
    {
        std::lock_guard lock(mutex_);
        stopping_ = true;
    }
    changed_.notify_all();
    write(Batch{first_index, std::move(batch), std::move(before)});
}

void FrameWriter::write_batches() {
    std::unique_lock lock(mutex_);
    while (true) {
        changed_.wait(lock, [&] { return waiting_ || stopping_; });
        if (!waiting_ || failure_) {
            return; // stopping with nothing left, or a frame failed and later ones must not follow it
        }
        const Batch batch = std::move(*waiting_);
        waiting_.reset();
        writing_ = true;
        lock.unlock();
        changed_.notify_all();
        std::exception_ptr failure;
        try {
            write(batch);
        } catch (...) {
            failure = std::current_exception();
        }
        lock.lock();
        writing_ = false;
        failure_ = failure;
        changed_.notify_all();
    }
}

void FrameWriter::write(const Batch& batch) {
    if (batch.before) {
        batch.before();
    }
    if (batch.events.empty()) {
        return;
    }
    const std::vector<uint8_t> frame = encoder_.encode(encode_batch(batch.first_index, batch.events));
    write_all(events_.get(), frame, path_, recording_);
    frames_.push_back(FrameLocation{file_bytes_, batch.first_index, batch.events.size()});
    file_bytes_ += frame.size();
}

void FrameWriter::rethrow_failure() {
    if (failure_) {
        std::rethrow_exception(failure_);
    }
}

} // namespace hermit
