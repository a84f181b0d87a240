#include "Replayer.h"

#include "GuestFileIo.h"
#include "RecordedSyscalls.h"
#include "Recorder.h"
#include "StandInDescriptors.h"
#include "formats/Error.h"
#include "formats/EventDescription.h"
#include "formats/FileIo.h"
#include "formats/Sha256.h"
#include "tracer/ReceivedDescriptors.h"
#include "tracer/SyscallBuffer.h"
#include "tracer/SyscallTable.h"
#include "tracer/Task.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <system_error>

namespace hermit::replay {

namespace {

size_t compared_argument_count(int number, size_t recorded) {
    if (replay_treatment(number) == ReplayTreatment::Execute) {
        // Pointers into the caller's memory (for the first exec, hermit's launcher); the path and the
        // arguments themselves are compared in the ExecEvent.
        return 0;
    }
    const tracer::SyscallRow* row = tracer::find_syscall(number);
    size_t count = row != nullptr ? row->arg_count : 6;
    return std::min(count, recorded);
}

bool arguments_match(const SyscallEvent& recorded, const std::array<uint64_t, 6>& args) {
    size_t count = compared_argument_count(recorded.number, recorded.args.size());
    return std::equal(recorded.args.begin(), recorded.args.begin() + static_cast<long>(count), args.begin());
}

bool arguments_match(const SyscallEvent& recorded, const SyscallEvent& replayed) {
    size_t count =
        compared_argument_count(recorded.number, std::min(recorded.args.size(), replayed.args.size()));
    return std::equal(recorded.args.begin(), recorded.args.begin() + static_cast<long>(count),
                      replayed.args.begin());
}

// Which argument differs, both values, and what a replayed name argument names: a divergence that says
// "openat with different arguments" leaves the user guessing (a changed system file, another directory).
std::string argument_difference(tracer::Task& task, const SyscallEvent& recorded,
                                const std::array<uint64_t, 6>& args) {
    const size_t count = compared_argument_count(recorded.number, recorded.args.size());
    const tracer::SyscallRow* row = tracer::find_syscall(recorded.number);
    for (size_t i = 0; i < count; ++i) {
        if (recorded.args[i] == args[i]) {
            continue;
        }
        std::string text =
            fmt::format("argument {} was {:#x} when recorded and is {:#x}", i + 1, recorded.args[i], args[i]);
        if (row != nullptr && row->args[i].kind == tracer::ArgKind::String) {
            if (const std::optional<std::string> name = task.read_string(args[i])) {
                text += fmt::format(", naming \"{}\"", *name);
            }
        }
        return text;
    }
    return "the same arguments";
}

std::optional<std::vector<char>> file_contents(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) {
        return std::nullopt;
    }
    return std::vector<char>(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}

bool has_digest(const std::filesystem::path& path, const std::string& sha256) {
    try {
        return sha256_hex_of_file(path) == sha256;
    } catch (const std::system_error&) { // missing or unreadable
        return false;
    }
}

// A call after which a path may name another file than before: a successful name change other than a
// new directory (which names no file a new one could be), or a change of working directory.
bool changes_names(const SyscallEvent& syscall) {
    if (syscall.result < 0 || syscall.number == SYS_mkdir || syscall.number == SYS_mkdirat) {
        return false;
    }
    const ReplayTreatment treatment = replay_treatment(syscall.number);
    return treatment == ReplayTreatment::ChangePath || treatment == ReplayTreatment::ChangeDirectory;
}

// A schedule that left the token with the thread that had it. Whether one is emitted depends on whether
// a new thread's first stop reached the tracer before its creation event (timing), and it changes
// nothing in the guest, so the replay and the recording may each have some the other lacks.
bool kept_running(const Event& event) {
    const auto* schedule = std::get_if<ScheduleEvent>(&event.payload);
    return schedule != nullptr && schedule->previous_tid == event.tid;
}

std::string describe_replayed(const Event& event) {
    if (const auto* syscall = std::get_if<SyscallEvent>(&event.payload)) {
        return fmt::format("{} = {}", describe_syscall(syscall->number), syscall->result);
    }
    return describe_recorded_event(event);
}

} // namespace

Replayer::~Replayer() {
    std::error_code error;
    for (const std::filesystem::path& copy : executable_copies_) {
        std::filesystem::remove(copy, error);
    }
}

Replayer::Replayer(const RecordingReader& reader, ReplayLog& log,
                   std::vector<tracer::SyscallInterceptor*> followers)
    : reader_(reader), log_(log), followers_(std::move(followers)) {
    for (const RecordedFile& file : reader_.meta().files) {
        recorded_copies_.emplace(file.path, &file);
    }
    for (int fd = 0; fd <= 2; fd++) {
        own_descriptors_.push_back(GuestDescriptors::own_identity(fd));
    }
}

std::set<int> Replayer::trapped_syscalls() const {
    return recorded_syscalls();
}

std::set<int> Replayer::notifiable_syscalls() const {
    return notifiable_recorded_syscalls();
}

bool Replayer::answers_without_stop(tracer::Task& /*task*/, const tracer::SyscallStop& /*stop*/) const {
    return !stop_index_;
}

void Replayer::stop_at_event(uint64_t event_index, StopHandler handler) {
    stop_index_ = event_index;
    stop_handler_ = std::move(handler);
}

const SyscallEvent& Replayer::expect_syscall(tracer::Task& task, const tracer::SyscallStop& stop) {
    const Event* next = log_.peek();
    if (next != nullptr && std::holds_alternative<ExecEvent>(next->payload) && next->tid == task.tid() &&
        log_.position() + 1 < log_.events().size()) {
        // A successful execve's event comes at its exit, after the exec itself.
        next = &log_.events()[log_.position() + 1];
    }
    const SyscallEvent* recorded = next != nullptr ? std::get_if<SyscallEvent>(&next->payload) : nullptr;
    if (recorded == nullptr || next->tid != task.tid() || recorded->number != stop.number) {
        log_.stop_at_end_if_cut_short();
        throw_desync(log_.position(), task.tid(),
                     next != nullptr ? describe_recorded_event(*next) : "end of recording",
                     describe_syscall(stop.number));
    }
    if (!arguments_match(*recorded, stop.args)) {
        throw_desync(log_.position(), task.tid(),
                     describe_syscall(recorded->number) + " with its recorded arguments",
                     describe_syscall(stop.number) + " with different arguments (" +
                         argument_difference(task, *recorded, stop.args) + ")");
    }
    return *recorded;
}

std::set<int> Replayer::buffered_syscalls() const {
    return tracer::syscall_buffer::replay_call_site_syscalls();
}

tracer::SyscallDecision Replayer::on_entry(tracer::Task& task, const tracer::SyscallStop& stop) {
    while (!log_.at_end() && kept_running(*log_.peek())) {
        log_.take();
    }
    if (stop_index_ && log_.position() >= *stop_index_) {
        stop_index_.reset();
        stop_handler_(log_.position(), task);
    }
    if (const Event* next = log_.peek();
        next != nullptr && next->tid == task.tid() && std::holds_alternative<SignalEvent>(next->payload)) {
        const auto& signal = std::get<SignalEvent>(next->payload);
        if (signal.outside) {
            // Sent from outside when recorded, and delivered at this entry: send it again. Back at an entry
            // with the signal still undelivered (the thread blocks it now): the replay has diverged.
            if (signal_sent_at_ == log_.position()) {
                throw_desync(log_.position(), task.tid(), describe_recorded_event(*next),
                             describe_syscall(stop.number) + " with the signal still pending");
            }
            signal_sent_at_ = log_.position();
            return tracer::SyscallDecision::deliver_signal(signal);
        }
        // A signal interrupted this syscall when recorded (it left no event of its own); the same signal is
        // pending now, so the kernel interrupts it the same way.
        return tracer::SyscallDecision::pass();
    }
    if (asks_about_system_file(task, stop)) {
        return tracer::SyscallDecision::untraced();
    }
    if (std::any_of(followers_.begin(), followers_.end(), [&](tracer::SyscallInterceptor* follower) {
            return follower->answers_untraced(task, stop);
        })) {
        return tracer::SyscallDecision::pass(); // as when recorded, the follower's own Untraced
    }
    const SyscallEvent& recorded = expect_syscall(task, stop);
    PendingSyscall& pending = pending_[task.tid()];
    pending = PendingSyscall{};
    if (recorded.result == SyscallEvent::kRetried) {
        // The recorded thread waited here and was asked again later: so is the replayed one.
        pending.retried = true;
        send_signal_that_ends_wait(task, stop);
        for (tracer::SyscallInterceptor* follower : followers_) {
            follower->on_entry_answered_in_front(task, stop,
                                                 recorded.result); // a sleep's first entry moved the clock
        }
        return tracer::SyscallDecision::retry();
    }
    if (stop.number == SYS_lseek && recorded.result >= 0) {
        return seek(task, stop, recorded);
    }
    if (stop.number == tracer::syscall_buffer::kRegisterSyscall) {
        placed_.erase(task.tid());
        return emulate(
            task, stop,
            tracer::syscall_buffer::register_buffer(task, stop, tracer::syscall_buffer::Mode::Replay));
    }
    switch (replay_treatment(stop.number)) {
    case ReplayTreatment::EmulateFromLog:
        return emulate_input(task, stop, recorded);
    case ReplayTreatment::OpenFile:
        return open_file(task, stop, recorded, pending);
    case ReplayTreatment::ChangePath:
        if (recorded.result >= 0) {
            change_path(task, stop.number, stop.args,
                        [&](size_t argument) { return task.read_string(stop.args[argument]); });
        }
        return emulate(task, stop, recorded.result);
    case ReplayTreatment::Execute:
        // A failed exec changed nothing: its error is the recorded one, whatever the files are now.
        return recorded.result < 0 ? emulate(task, stop, recorded.result) : execute_file(task, stop, pending);
    case ReplayTreatment::ChangeDirectory:
        return change_directory(task, stop, recorded, pending);
    case ReplayTreatment::Write:
        return write(task, stop, recorded, pending);
    case ReplayTreatment::NotRecorded:
        break;
    }
    return tracer::SyscallDecision::pass();
}

void Replayer::send_signal_that_ends_wait(tracer::Task& task, const tracer::SyscallStop& stop) {
    if (stop.number != SYS_pause && stop.number != SYS_rt_sigsuspend) {
        return;
    }
    const std::vector<Event>& events = log_.events();
    for (uint64_t index = log_.position() + 1; index < events.size(); index++) {
        if (events[index].tid != task.tid()) {
            continue;
        }
        const auto* signal = std::get_if<SignalEvent>(&events[index].payload);
        if (signal != nullptr && signal->outside) {
            // Pending, it makes the parked thread runnable; at its next entry it is sent as recorded.
            syscall(SYS_tgkill, task.host_pid(), task.host_tid(), signal->number);
        }
        return;
    }
}

tracer::SyscallDecision Replayer::seek(tracer::Task& task, const tracer::SyscallStop& stop,
                                       const SyscallEvent& recorded) {
    // Writes to files run for real on replay and must land where they did: the real offset goes to the
    // recorded resulting offset (only regular files have one that matters: reads of others are emulated).
    GuestFileIo::move_offset(task, static_cast<int>(stop.args[0]), recorded.result, SEEK_SET);
    return emulate(task, stop, recorded.result);
}

tracer::SyscallDecision Replayer::emulate_input(tracer::Task& task, const tracer::SyscallStop& stop,
                                                const SyscallEvent& recorded) {
    // Results the Virtualizer produced (clock, random, /dev/urandom) are recomputed by it.
    if (recorded.emulated || (stop.number == SYS_ioctl && !GuestFileIo::reports_state(stop.args[1]) &&
                              !GuestFileIo::changes_terminal(stop.args[1]))) {
        return tracer::SyscallDecision::pass();
    }
    for (const MemoryWrite& write : recorded.memory_writes) {
        if (!task.write(write.address, write.data.data(), write.data.size())) {
            throw_desync(log_.position(), task.tid(),
                         fmt::format("{} writing {} bytes at {:#x}", describe_syscall(stop.number),
                                     write.data.size(), write.address),
                         "that memory is not mapped");
        }
    }
    if (stop.number == SYS_recvmsg && recorded.result >= 0) {
        install_stand_ins(task, tracer::received_descriptors(task, stop.args[1]),
                          (stop.args[2] & MSG_CMSG_CLOEXEC) != 0);
    }
    if ((stop.number == SYS_read || stop.number == SYS_readv) && recorded.result > 0) {
        // The guest may write to this file next without seeking (ld reads back its output): the real
        // offset must move as the recorded read moved it.
        GuestFileIo::move_offset(task, static_cast<int>(stop.args[0]), recorded.result, SEEK_CUR);
    }
    return emulate(task, stop, recorded.result);
}

tracer::SyscallDecision Replayer::emulate(tracer::Task& task, const tracer::SyscallStop& stop,
                                          int64_t result) {
    for (tracer::SyscallInterceptor* follower : followers_) {
        follower->on_entry_answered_in_front(task, stop, result);
    }
    return tracer::SyscallDecision::emulate(result);
}

MadeNames::Resolved Replayer::resolved_path_argument(tracer::Task& task, const tracer::SyscallStop& stop,
                                                     bool follow_last) const {
    const size_t argument = tracer::path_argument(stop.number);
    const std::string absolute = guest_path_argument(task, stop, argument, argument == 0 ? -1 : 0);
    return absolute.empty() ? MadeNames::Resolved{} : made_names_.resolve(absolute, follow_last);
}

std::string Replayer::guest_path_argument(tracer::Task& task, const tracer::SyscallStop& stop,
                                          size_t path_argument, int dirfd_argument) const {
    return guest_path(task, task.read_string(stop.args[path_argument]), dirfd_of(stop.args, dirfd_argument));
}

std::string Replayer::guest_path(tracer::Task& task, const std::optional<std::string>& guest_path,
                                 int dirfd) const {
    if (!guest_path) {
        return {};
    }
    if (guest_path->starts_with('/')) {
        // A stand-in's own name, which the guest can read from /proc, names the directory it stands for.
        return made_names_.guest_name(GuestDescriptors::absolute_path(task, dirfd, *guest_path));
    }
    // The directory (the cwd, or a dirfd) may be the stand-in of a directory the guest made: the path is
    // joined to the guest's name for it, so that ".." leads where it led when recorded.
    const std::string directory = start_directory(task, dirfd);
    return directory.empty() ? directory
                             : (std::filesystem::path(made_names_.guest_name(directory)) / *guest_path)
                                   .lexically_normal()
                                   .string();
}

int Replayer::dirfd_of(std::span<const uint64_t> args, int dirfd_argument) {
    return dirfd_argument < 0 ? AT_FDCWD : static_cast<int>(args[static_cast<size_t>(dirfd_argument)]);
}

std::string Replayer::start_directory(tracer::Task& task, int dirfd) {
    return GuestDescriptors::absolute_path(task, dirfd, ".");
}

tracer::SyscallDecision Replayer::open_file(tracer::Task& task, const tracer::SyscallStop& stop,
                                            const SyscallEvent& recorded, PendingSyscall& pending) {
    if (recorded.result < 0) {
        // The open failed when recorded; whatever the file system holds now must not change that.
        return emulate(task, stop, recorded.result);
    }
    const uint64_t flags = open_flags(task, stop);
    const MadeNames::Resolved resolved = resolved_path_argument(task, stop, (flags & O_NOFOLLOW) == 0);
    const std::string& absolute = resolved.path;
    std::optional<std::filesystem::path> replacement;
    if (made_names_.is_directory(absolute)) {
        replacement = directory_stand_in(absolute);
    } else if (auto scratch = scratch_files_.find(absolute); scratch != scratch_files_.end()) {
        replacement = scratch->second;
    } else if (gets_scratch_file(absolute, flags)) {
        replacement = make_scratch_file(absolute, flags);
    } else {
        replacement = replacement_for(resolved);
    }
    return redirect_path(task, stop, absolute, replacement, pending);
}

std::optional<std::filesystem::path>
Replayer::new_file_instead(tracer::Task& task, const SyscallEvent& call,
                           const std::vector<std::string>& names_changed) {
    const uint64_t flags = call.args[2];
    const std::string absolute =
        call.paths.empty() ? std::string() : guest_path(task, call.paths.front(), AT_FDCWD);
    if (absolute.empty()) {
        return std::nullopt;
    }
    // What the file system holds at the name now is not what the guest found there (nothing, not even a
    // symlink: O_EXCL follows none), so it is not looked at: the file gets a private copy unless it is a
    // system file, as a notified open's would (open_file).
    const std::string path = made_names_.entry_path(absolute);
    if (is_system_file(path) || made_names_.is_directory(path) ||
        std::any_of(names_changed.begin(), names_changed.end(),
                    [&](const std::string& name) { return name.empty() || is_at_or_under(path, name); })) {
        return std::nullopt;
    }
    const auto scratch = scratch_files_.find(path);
    return scratch != scratch_files_.end() ? scratch->second : make_scratch_file(path, flags);
}

bool Replayer::gets_scratch_file(const std::string& absolute_path, uint64_t flags) const {
    if (absolute_path.empty() || is_system_file(absolute_path)) {
        return false;
    }
    // A FIFO or a device keeps its kind (DescriptorTraps traps its descriptor as when recorded).
    std::error_code error;
    const auto status = std::filesystem::status(absolute_path, error);
    if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
        return false;
    }
    // A copied file that some open wrote when recorded: its reads and writes run natively, on one private
    // copy for all the descriptors that name it, as they shared one file when recorded.
    const RecordedFile* copy = recorded_copy(absolute_path);
    return opens_for_writing(flags) || (copy != nullptr && !copy->only_read);
}

const RecordedFile* Replayer::recorded_copy(const std::string& absolute_path) const {
    const auto copy = recorded_copies_.find(absolute_path);
    return copy != recorded_copies_.end() ? copy->second : nullptr;
}

tracer::SyscallDecision Replayer::execute_file(tracer::Task& task, const tracer::SyscallStop& stop,
                                               PendingSyscall& pending) {
    const MadeNames::Resolved resolved = resolved_path_argument(task, stop);
    const std::string& absolute = resolved.path;
    std::optional<std::filesystem::path> replacement;
    if (auto scratch = scratch_files_.find(absolute); scratch != scratch_files_.end()) {
        // A program the guest built during the run: the original serves when it is still the same and the
        // kernel finds it.
        if (resolved.through_made_symlink || file_contents(absolute) != file_contents(scratch->second)) {
            replacement = scratch->second;
        }
    } else {
        replacement = replacement_for(resolved);
    }
    if (replacement) {
        auto guest_path = task.read_string(stop.args[tracer::path_argument(stop.number)]);
        replacement = executable_copy(*replacement, guest_path ? guest_path->size() : 0);
    }
    return redirect_path(task, stop, absolute, replacement, pending);
}

tracer::SyscallDecision Replayer::change_directory(tracer::Task& task, const tracer::SyscallStop& stop,
                                                   const SyscallEvent& recorded, PendingSyscall& pending) {
    if (recorded.result < 0) {
        return emulate(task, stop, recorded.result);
    }
    const std::string directory = resolved_path_argument(task, stop).path;
    return redirect_path(task, stop, directory,
                         made_names_.is_directory(directory) ? std::optional(directory_stand_in(directory))
                                                             : std::nullopt,
                         pending);
}

std::filesystem::path Replayer::executable_copy(const std::filesystem::path& program, size_t path_length) {
    // The kernel copies the path given to execve to the top of the new stack, so a path of another length
    // would move every stack address of the program. Under /tmp a name of the same length can be made.
    const std::string directory = "/tmp/";
    std::filesystem::path copy = program;
    for (int attempt = 0; path_length > directory.size() && attempt < 100; attempt++) {
        std::string name;
        for (uint64_t value = (static_cast<uint64_t>(getpid()) << 16) + scratch_count_++ + attempt;
             name.size() < path_length - directory.size(); value /= 36) {
            name += "0123456789abcdefghijklmnopqrstuvwxyz"[value % 36];
        }
        const int fd = open((directory + name).c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0700);
        if (fd >= 0) {
            close(fd);
            copy = directory + name;
            std::error_code error;
            std::filesystem::copy_file(program, copy, std::filesystem::copy_options::overwrite_existing,
                                       error);
            executable_copies_.push_back(copy);
            break;
        }
    }
    std::error_code error;
    std::filesystem::permissions(copy, std::filesystem::perms::owner_all, std::filesystem::perm_options::add,
                                 error);
    return copy;
}

tracer::SyscallDecision Replayer::redirect_path(tracer::Task& task, const tracer::SyscallStop& stop,
                                                const std::string& absolute,
                                                std::optional<std::filesystem::path> replacement,
                                                PendingSyscall& pending) {
    if (!replacement && !absolute.empty() && relative_to_stand_in(task, stop)) {
        replacement = absolute;
    }
    if (!replacement) {
        return tracer::SyscallDecision::pass();
    }
    spdlog::debug("replay: {} instead of {}", replacement->string(), absolute);
    pending.redirected = true;
    return tracer::SyscallDecision::replace_path(replacement->string());
}

bool Replayer::relative_to_stand_in(tracer::Task& task, const tracer::SyscallStop& stop) const {
    const size_t argument = tracer::path_argument(stop.number);
    const auto path = task.read_string(stop.args[argument]);
    if (!path || path->starts_with('/')) {
        return false;
    }
    const std::string directory =
        start_directory(task, argument == 0 ? AT_FDCWD : static_cast<int>(stop.args[0]));
    return !directory.empty() && made_names_.guest_name(directory) != directory;
}

std::filesystem::path Replayer::new_scratch_path() {
    const std::filesystem::path& directory = scratch_directory_.path();
    if (directory.empty()) {
        throw Error(ErrorCode::ReplayUnsupported, reader_.directory().string(),
                    fmt::format("cannot create a scratch directory: {}", std::strerror(errno)));
    }
    return directory / std::to_string(scratch_count_++);
}

void Replayer::extract_copy(const RecordedFile& file, const std::filesystem::path& destination) const {
    UniqueFd out(open(destination.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
    if (out.get() < 0) {
        throw Error(ErrorCode::ReplayUnsupported, reader_.directory().string(),
                    fmt::format("cannot create {}: {}", destination.string(), std::strerror(errno)));
    }
    reader_.write_file_copy(file, out.get());
}

std::filesystem::path Replayer::directory_stand_in(const std::string& directory) {
    if (auto existing = made_names_.stand_in(directory)) {
        return *existing;
    }
    const std::filesystem::path stand_in = new_scratch_path();
    std::filesystem::create_directory(stand_in);
    made_names_.set_stand_in(directory, stand_in);
    return stand_in;
}

std::filesystem::path Replayer::make_scratch_file(const std::string& absolute_path, uint64_t flags) {
    const std::filesystem::path scratch = new_scratch_path();
    const RecordedFile* recorded = recorded_copy(absolute_path);
    std::error_code error;
    if ((flags & O_EXCL) != 0 || made_names_.was_removed(absolute_path)) {
        // It did not exist when recorded, or the guest removed the file it was: the open creates it.
    } else if (recorded != nullptr) {
        // The recorder copies a file at its first open: the content the guest found.
        extract_copy(*recorded, scratch);
    } else if (std::filesystem::exists(absolute_path, error)) {
        std::filesystem::copy_file(absolute_path, scratch, error);
    }
    if ((flags & O_CREAT) == 0 && !std::filesystem::exists(scratch, error)) {
        // It existed when recorded (the open succeeded without O_CREAT).
        std::ofstream{scratch};
    }
    made_names_.made_file(absolute_path);
    scratch_files_[absolute_path] = scratch;
    return scratch;
}

void Replayer::change_path(tracer::Task& task, int number, std::span<const uint64_t> args,
                           const PathArgument& path) {
    // The absolute name of the directory entry a path argument names (MadeNames::entry_path), relative to
    // the dirfd argument (-1: the cwd).
    auto entry = [&](size_t path_argument, int dirfd_argument) {
        const std::string absolute = guest_path(task, path(path_argument), dirfd_of(args, dirfd_argument));
        return absolute.empty() ? absolute : made_names_.entry_path(absolute);
    };
    switch (number) {
    case SYS_unlink:
    case SYS_rmdir:
        remove_name(entry(0, -1));
        break;
    case SYS_unlinkat:
        remove_name(entry(1, 0));
        break;
    case SYS_rename:
    case SYS_renameat:
    case SYS_renameat2: {
        const bool at = number != SYS_rename;
        const std::string from = entry(at ? 1 : 0, at ? 0 : -1);
        const std::string to = entry(at ? 3 : 1, at ? 2 : -1);
        std::error_code error;
        const bool real_directory =
            !made_names_.is_directory(from) &&
            std::filesystem::is_directory(std::filesystem::symlink_status(from, error));
        MadeNames::move_entries(scratch_files_, from, to);
        made_names_.renamed(from, to);
        if (real_directory) {
            // Under its new name it exists only in the replay's view, as one the guest made.
            made_names_.made_directory(to);
        }
        break;
    }
    case SYS_mkdir:
    case SYS_mkdirat: {
        const bool at = number == SYS_mkdirat;
        made_names_.made_directory(entry(at ? 1 : 0, at ? 0 : -1));
        break;
    }
    case SYS_symlink:
    case SYS_symlinkat: {
        const bool at = number == SYS_symlinkat;
        if (auto target = path(0)) {
            made_names_.made_symlink(entry(at ? 2 : 1, at ? 1 : -1), *target);
        }
        break;
    }
    case SYS_link:
        link(entry(0, -1), entry(1, -1));
        break;
    case SYS_truncate: {
        // The private copy changes as the file did. A file without one was copied after this call (at its
        // first open), with its new size.
        const auto scratch =
            scratch_files_.find(made_names_.resolve(guest_path(task, path(0), AT_FDCWD), true).path);
        std::error_code error;
        if (scratch != scratch_files_.end()) {
            std::filesystem::resize_file(scratch->second, args[1], error);
        }
        break;
    }
    case SYS_linkat: {
        // linkat follows a symlink named last only when asked to; link never does.
        const std::string from = guest_path(task, path(1), dirfd_of(args, 0));
        link((args[4] & AT_SYMLINK_FOLLOW) != 0 ? made_names_.resolve(from, true).path
                                                : made_names_.entry_path(from),
             entry(3, 2));
        break;
    }
    default:
        break;
    }
}

void Replayer::link(const std::string& from, const std::string& to) {
    if (auto target = made_names_.symlink_target(from)) {
        made_names_.made_symlink(to, *target);
        return;
    }
    made_names_.made_file(to);
    if (is_system_file(from)) {
        return;
    }
    auto scratch = scratch_files_.find(from);
    scratch_files_[to] =
        scratch != scratch_files_.end() ? scratch->second : make_scratch_file(from, O_RDONLY);
}

void Replayer::remove_name(const std::string& path) {
    made_names_.removed(path);
    auto scratch = scratch_files_.find(path);
    if (scratch == scratch_files_.end()) {
        return;
    }
    const std::filesystem::path copy = scratch->second;
    scratch_files_.erase(scratch);
    // Another name of it (a hard link the guest made) keeps it. Compared as strings: a path's compare() goes
    // by components, a cost in every unlink of a replay that made many files (git add: 300 objects).
    if (std::none_of(scratch_files_.begin(), scratch_files_.end(),
                     [&](const auto& entry) { return entry.second.native() == copy.native(); })) {
        std::filesystem::remove(copy);
    }
}

std::optional<std::filesystem::path> Replayer::replacement_for(const MadeNames::Resolved& resolved) {
    const std::string& absolute_path = resolved.path;
    if (absolute_path.empty()) {
        return std::nullopt;
    }
    if (resolved.through_made_symlink) {
        // The kernel would not find the file through the symlink the replay did not make.
        return replacement_for(MadeNames::Resolved{absolute_path}).value_or(absolute_path);
    }
    auto cached = replacements_.find(absolute_path);
    if (cached != replacements_.end()) {
        return cached->second;
    }
    std::optional<std::filesystem::path> replacement;
    if (const RecordedFile* file = recorded_copy(absolute_path);
        file && !has_digest(absolute_path, file->sha256)) {
        replacement = new_scratch_path();
        extract_copy(*file, *replacement);
    }
    replacements_.emplace(absolute_path, replacement);
    return replacement;
}

bool Replayer::is_inherited(pid_t host_pid, int fd) const {
    auto identity = GuestDescriptors::identity(host_pid, fd);
    return identity &&
           std::find(own_descriptors_.begin(), own_descriptors_.end(), identity) != own_descriptors_.end();
}

tracer::SyscallDecision Replayer::write(tracer::Task& task, const tracer::SyscallStop& stop,
                                        const SyscallEvent& recorded, PendingSyscall& pending) {
    const int fd = static_cast<int>(stop.args[0]);
    if (!is_inherited(task.host_pid(), fd)) {
        if (GuestDescriptors::is_stream(task.host_pid(), fd)) {
            return emulate(task, stop, recorded.result);
        }
        if (auto done = GuestFileIo::perform(task, stop, [](const ObjectIdentity&) { return true; })) {
            return tracer::SyscallDecision::emulate(done->result);
        }
        return tracer::SyscallDecision::pass();
    }
    if (stop.number == SYS_write) {
        pending.written_bytes = task.read_bytes(stop.args[1], stop.args[2]);
        check_output_before_it_is_written(task.tid(), pending);
    }
    if (log_.position() < silent_before_) {
        return emulate(task, stop, recorded.result);
    }
    // Run as recorded: whether it waits for the outside reader now is not the replay's business.
    return tracer::SyscallDecision::run();
}

void Replayer::on_buffered_syscall(tracer::Task& task, const SyscallEvent& call) {
    if (replay_treatment(call.number) != ReplayTreatment::ChangePath || call.result < 0) {
        return;
    }
    const std::vector<size_t> arguments = tracer::syscall_buffer::path_arguments(call.number);
    change_path(task, call.number, call.args, [&](size_t argument) -> std::optional<std::string> {
        const auto index =
            static_cast<size_t>(std::find(arguments.begin(), arguments.end(), argument) - arguments.begin());
        return index < call.paths.size() ? std::optional(call.paths[index]) : std::nullopt;
    });
}

void Replayer::on_resume(tracer::Task& task) {
    if (task.syscall_buffer() == 0) {
        return;
    }
    // The thread's next recorded events while they are calls made in its buffer, after the event of the
    // syscall it is answered at now, which is emitted once it runs on; with each, whether another thread
    // changed names before it (those paths are not in the log).
    constexpr uint64_t kLookAhead = 1024;
    const std::vector<Event>& events = log_.events();
    bool skip_current = pending_.contains(task.tid());
    bool others_changed_names = false;
    std::vector<std::pair<const SyscallEvent*, bool>> ahead;
    uint64_t first = 0;
    for (uint64_t index = log_.position(); index < events.size() && index < log_.position() + kLookAhead;
         index++) {
        const Event& event = events[index];
        if (event.tid != task.tid() || kept_running(event)) {
            const auto* other = std::get_if<SyscallEvent>(&event.payload);
            others_changed_names |= other != nullptr && changes_names(*other);
            continue;
        }
        if (std::exchange(skip_current, false)) {
            continue; // answered now: a name it changes is changed already
        }
        const auto* syscall = std::get_if<SyscallEvent>(&event.payload);
        if (syscall == nullptr || !syscall->buffered) {
            break;
        }
        first = ahead.empty() ? index : first;
        ahead.emplace_back(syscall, others_changed_names);
    }
    auto placed = placed_.find(task.tid());
    if (ahead.empty() || (placed != placed_.end() && placed->second == first)) {
        return;
    }
    std::vector<const SyscallEvent*> calls;
    std::deque<SyscallEvent> new_files; // placed with the private file the library opens instead
    // The names the calls before changed, which the replay takes in only when each is emitted (MadeNames
    // entries, resolved when a new file comes). A new file at or under one of them is not placed: its
    // open stops the thread and is answered then, in order.
    std::vector<std::string> names_changed;
    size_t calls_with_names_resolved = 0;
    for (const auto& [call, after_others_changed_names] : ahead) {
        const SyscallEvent* placed_call = call;
        if (call->number == SYS_openat && call->result >= 0) {
            for (; calls_with_names_resolved < calls.size(); calls_with_names_resolved++) {
                const SyscallEvent& before = *calls[calls_with_names_resolved];
                if (changes_names(before)) {
                    for (const std::string& path : before.paths) {
                        names_changed.push_back(made_names_.entry_path(guest_path(task, path, AT_FDCWD)));
                    }
                }
            }
            const auto instead =
                after_others_changed_names ? std::nullopt : new_file_instead(task, *call, names_changed);
            if (!instead) {
                break;
            }
            placed_call = &new_files.emplace_back(*call);
            new_files.back().paths.push_back(instead->string());
        }
        calls.push_back(placed_call);
    }
    if (!calls.empty() && tracer::syscall_buffer::place(task, calls)) {
        placed_[task.tid()] = first;
    }
}

void Replayer::on_event(const Event& event) {
    if (kept_running(event) &&
        (log_.at_end() || !std::holds_alternative<ScheduleEvent>(log_.peek()->payload))) {
        return;
    }
    while (!log_.at_end() && kept_running(*log_.peek()) &&
           !std::holds_alternative<ScheduleEvent>(event.payload)) {
        log_.take();
    }
    const uint64_t index = log_.position();
    if (log_.at_end()) {
        log_.stop_at_end_if_cut_short();
        throw_desync(index, event.tid, "end of recording", describe_replayed(event));
    }
    const Event& recorded = log_.take();
    auto pending = pending_.find(event.tid);
    const bool is_syscall = std::holds_alternative<SyscallEvent>(event.payload);
    const bool redirected = pending != pending_.end() && pending->second.redirected;
    compare(index, recorded, event, is_syscall && pending != pending_.end() ? &pending->second : nullptr,
            std::holds_alternative<ExecEvent>(event.payload) && redirected);
    if (is_syscall && pending != pending_.end()) {
        take_output(event);
        pending_.erase(pending);
    }
    // Nothing after an unfinished recording's last event is known: the replay ends right there (the guest
    // may spin without another event).
    log_.stop_at_end_if_cut_short();
}

void Replayer::compare(uint64_t index, const Event& recorded, const Event& replayed,
                       const PendingSyscall* pending, bool redirected_exec) const {
    auto diverged = [&](const std::string& expected, const std::string& actual) {
        throw_desync(index, replayed.tid, expected, actual);
    };
    if (recorded.payload.index() != replayed.payload.index() || recorded.tid != replayed.tid) {
        diverged(describe_recorded_event(recorded),
                 fmt::format("{} in thread {}", describe_replayed(replayed), replayed.tid));
    }
    const auto* recorded_syscall = std::get_if<SyscallEvent>(&recorded.payload);
    const auto* recorded_exec = std::get_if<ExecEvent>(&recorded.payload);
    if (recorded_exec != nullptr && redirected_exec) {
        // The program runs from the replay's copy; the guest asked for the same path and arguments.
        if (recorded_exec->argv != std::get<ExecEvent>(replayed.payload).argv) {
            diverged(describe_recorded_event(recorded),
                     describe_replayed(replayed) + " with other arguments");
        }
        return;
    }
    if (recorded_syscall == nullptr) {
        if (recorded.payload != replayed.payload) {
            diverged(describe_event(recorded), describe_event(replayed));
        }
        return;
    }
    const auto& replayed_syscall = std::get<SyscallEvent>(replayed.payload);
    const std::string name = describe_syscall(recorded_syscall->number);
    if (recorded_syscall->number != replayed_syscall.number) {
        diverged(name, describe_syscall(replayed_syscall.number));
    }
    if (pending != nullptr && pending->retried) {
        return;
    }
    if ((pending == nullptr || !pending->redirected) &&
        !arguments_match(*recorded_syscall, replayed_syscall)) {
        diverged(name + " with its recorded arguments", name + " with different arguments");
    }
    if (recorded_syscall->result != replayed_syscall.result) {
        diverged(fmt::format("{} = {}", name, recorded_syscall->result),
                 fmt::format("{} = {}", name, replayed_syscall.result));
    }
}

void Replayer::check_output_before_it_is_written(int32_t tid, const PendingSyscall& pending) const {
    // The write's own event is next in the log; the output it made follows it.
    const uint64_t index = log_.position() + 1;
    const Event* output = index < log_.size() ? &log_.events()[index] : nullptr;
    if (output == nullptr || output->tid != tid || !std::holds_alternative<StdioEvent>(output->payload)) {
        return;
    }
    const auto& recorded = std::get<StdioEvent>(output->payload);
    // The recorded bytes are what the kernel accepted, a prefix of what the guest asked to write. Checked
    // before the write runs: a replay never shows output the recording did not have, not even just before
    // it stops.
    if (!pending.written_bytes) {
        return; // unreadable: the kernel fails the write the same way
    }
    const std::vector<uint8_t>& written = *pending.written_bytes;
    const auto differs =
        std::mismatch(recorded.data.begin(), recorded.data.end(), written.begin(), written.end());
    if (differs.first != recorded.data.end()) {
        throw_desync(index, tid, fmt::format("{} bytes written on fd {}", recorded.data.size(), recorded.fd),
                     fmt::format("different bytes from byte {} on", differs.first - recorded.data.begin()));
    }
}

void Replayer::take_output(const Event& replayed) {
    const Event* next = log_.peek();
    if (next != nullptr && next->tid == replayed.tid && std::holds_alternative<StdioEvent>(next->payload)) {
        log_.take(); // compared with the bytes before they were written
    }
}

void Replayer::check_finished(int recorded_exit_status, int replayed_exit_status) const {
    if (!log_.at_end()) {
        throw_desync(log_.position(), log_.peek()->tid, describe_recorded_event(*log_.peek()),
                     "end of the guest");
    }
    if (recorded_exit_status != replayed_exit_status) {
        throw_desync(log_.position(), 0, fmt::format("exit status {}", recorded_exit_status),
                     fmt::format("exit status {}", replayed_exit_status));
    }
}

} // namespace hermit::replay
