#include "Verify.h"
#include "formats/JsonText.h"

#include "GuestEnvironment.h"
#include "formats/Error.h"
#include "formats/ScheduleDiff.h"
#include "tracer/GuestRun.h"
#include "tracer/SyscallTable.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

namespace hermit::replay {

namespace {

struct CapturedRun {
    int exit_status = 0;
    std::vector<Event> events;
    std::string stdout_text;
    std::string stderr_text;
};

class EventCollector : public tracer::EventSink {
public:
    void on_event(const Event& event) override { events.push_back(event); }
    std::vector<Event> events;
};

[[noreturn]] void fail(const std::string& what) {
    throw Error(ErrorCode::TracerInternal, fmt::format("--verify: {}: {}", what, std::strerror(errno)));
}

int anonymous_file(const char* name) {
    int fd = memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) {
        fail("memfd_create");
    }
    return fd;
}

std::string contents(int fd) {
    std::string text;
    char buffer[65536];
    ssize_t length;
    for (off_t offset = 0; (length = pread(fd, buffer, sizeof buffer, offset)) > 0; offset += length) {
        text.append(buffer, static_cast<size_t>(length));
    }
    return text;
}

void write_all(int fd, const std::string& text) {
    for (size_t done = 0; done < text.size();) {
        ssize_t written = ::write(fd, text.data() + done, text.size() - done);
        if (written <= 0) {
            if (written < 0 && errno == EINTR) {
                continue;
            }
            return;
        }
        done += static_cast<size_t>(written);
    }
}

// The guest inherits hermit's descriptors 0-2 when it is forked. During a verify run they point to the
// capture files; at the guest's first exec (it has been forked by then) hermit gets its own back, so
// hermit's diagnostics never mix with the guest's output.
class StdioRedirection : public tracer::SyscallInterceptor {
public:
    StdioRedirection(int input, int output, int error) {
        std::fflush(stdout);
        std::fflush(stderr);
        for (int fd = 0; fd <= 2; fd++) {
            saved_[fd] = dup(fd);
            if (saved_[fd] < 0) {
                fail("dup");
            }
        }
        int targets[3] = {input, output, error};
        for (int fd = 0; fd <= 2; fd++) {
            if (targets[fd] >= 0 && dup2(targets[fd], fd) < 0) {
                fail("dup2");
            }
        }
    }
    ~StdioRedirection() override {
        restore();
        for (int fd : saved_) {
            close(fd);
        }
    }
    StdioRedirection(const StdioRedirection&) = delete;
    StdioRedirection& operator=(const StdioRedirection&) = delete;

    std::set<int> trapped_syscalls() const override { return {}; }
    tracer::SyscallDecision on_entry(tracer::Task&, const tracer::SyscallStop&) override {
        return tracer::SyscallDecision::pass();
    }
    void on_exec(tracer::Task&) override { restore(); }

private:
    void restore() {
        if (restored_) {
            return;
        }
        restored_ = true;
        for (int fd = 0; fd <= 2; fd++) {
            dup2(saved_[fd], fd);
        }
    }

    int saved_[3] = {-1, -1, -1};
    bool restored_ = false;
};

// Stdin for both runs: the same bytes, read once from hermit's stdin; nullopt for a terminal, which the
// guests then share.
std::optional<int> snapshot_stdin() {
    if (isatty(0)) {
        return std::nullopt;
    }
    int copy = anonymous_file("hermit-verify-stdin");
    char buffer[65536];
    ssize_t length;
    while ((length = read(0, buffer, sizeof buffer)) > 0 || (length < 0 && errno == EINTR)) {
        if (length > 0) {
            write_all(copy, std::string(buffer, static_cast<size_t>(length)));
        }
    }
    return copy;
}

// `changes_since_ns`: unset for the first run, which sets it to its start; the second then takes what the
// first changed as its own changes too (tracer::GuestRunSpec::changes_since_ns).
CapturedRun capture_run(const VerifyOptions& options, std::optional<int> input,
                        std::optional<int64_t>& changes_since_ns) {
    int output = anonymous_file("hermit-verify-stdout");
    int error = anonymous_file("hermit-verify-stderr");
    if (input) {
        lseek(*input, 0, SEEK_SET);
    }
    CapturedRun captured;
    {
        tracer::GuestRunSpec spec{options.argv, current_environment(), {}, options.config};
        spec.changes_since_ns = changes_since_ns;
        // Both runs start from the same files: each writes into a throwaway layer over the working directory.
        std::error_code unknown;
        spec.cwd = std::filesystem::current_path(unknown).string();
        spec.throwaway_directory = spec.cwd;
        tracer::GuestRun run(std::move(spec));
        changes_since_ns = run.virtualizer().changes_since_ns();
        EventCollector collector;
        StdioRedirection redirection(input.value_or(-1), output, error);
        run.add_interceptor(&redirection);
        run.add_event_sink(&collector);
        captured.exit_status = run.run();
        captured.events = std::move(collector.events);
    }
    captured.stdout_text = contents(output);
    captured.stderr_text = contents(error);
    close(output);
    close(error);
    return captured;
}

std::string syscall_name_of(int number) {
    const tracer::SyscallRow* row = tracer::find_syscall(number);
    return row != nullptr ? std::string(row->name) : std::string();
}

// The first difference between the runs, or nullopt; `index` is the event index of an event difference.
std::optional<std::string> first_difference(const CapturedRun& a, const CapturedRun& b,
                                            const ScheduleDiffResult& diff, uint64_t& index) {
    if (diff.divergence) {
        index = diff.divergence->index;
        return describe_divergence(*diff.divergence, syscall_name_of);
    }
    index = diff.events_a;
    if (a.exit_status != b.exit_status) {
        return fmt::format("exit status {} in run A, {} in run B", a.exit_status, b.exit_status);
    }
    if (a.stdout_text != b.stdout_text) {
        return "the guest's stdout differs";
    }
    if (a.stderr_text != b.stderr_text) {
        return "the guest's stderr differs";
    }
    return std::nullopt;
}

void write_json(const std::string& path, const CapturedRun& a, const CapturedRun& b,
                const ScheduleDiffResult& diff, const std::optional<std::string>& difference,
                uint64_t index) {
    nlohmann::json json = {
        {"identical", !difference.has_value()},
        {"events", {diff.events_a, diff.events_b}},
        {"exit_status", {a.exit_status, b.exit_status}},
        {"stdout_identical", a.stdout_text == b.stdout_text},
        {"stderr_identical", a.stderr_text == b.stderr_text},
    };
    nlohmann::json threads = nlohmann::json::array();
    for (const ThreadEventCounts& thread : diff.threads) {
        threads.push_back({{"tid", thread.tid}, {"events", {thread.events_a, thread.events_b}}});
    }
    json["threads"] = threads;
    if (difference) {
        json["first_difference"] = {{"event_index", index}, {"description", *difference}};
        if (diff.divergence) {
            auto side = [](const std::optional<Event>& event) {
                return event ? nlohmann::json(describe_event(*event, syscall_name_of))
                             : nlohmann::json(nullptr);
            };
            json["first_difference"]["reason"] = diff.divergence->reason;
            json["first_difference"]["a"] = side(diff.divergence->a);
            json["first_difference"]["b"] = side(diff.divergence->b);
        }
    } else {
        json["first_difference"] = nullptr;
    }
    std::ofstream stream(path);
    stream << json_text(json, 2) << "\n";
    if (!stream) {
        throw Error(ErrorCode::UsageError, fmt::format("cannot write --verify-json file '{}'", path));
    }
}

} // namespace

int verify_run(const VerifyOptions& options) {
    if (options.argv.empty()) {
        throw Error(ErrorCode::MissingCommand);
    }
    std::optional<int> input = snapshot_stdin();
    std::optional<int64_t> changes_since_ns;
    const CapturedRun first = capture_run(options, input, changes_since_ns);
    const CapturedRun second = capture_run(options, input, changes_since_ns);
    if (input) {
        close(*input);
    }
    const ScheduleDiffResult diff = diff_events(first.events, second.events);
    uint64_t index = 0;
    const std::optional<std::string> difference = first_difference(first, second, diff, index);
    if (!options.json_path.empty()) {
        write_json(options.json_path, first, second, diff, difference, index);
    }
    write_all(1, first.stdout_text);
    write_all(2, first.stderr_text);
    if (difference) {
        throw Error(ErrorCode::VerifyDiverged, index, *difference);
    }
    std::fprintf(stderr, "verify: identical (%llu events)\n", static_cast<unsigned long long>(diff.events_a));
    return first.exit_status;
}

} // namespace hermit::replay
