#include "EventCodec.h"

#include "FormatDamage.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fmt/format.h>
#include <kj/exception.h>

#include <cstring>
#include <type_traits>

namespace hermit {

namespace {

// The schema nests at most five levels (batch, event, syscall, memory writes, data).
constexpr int kNestingLimit = 16;

std::string text(capnp::Text::Reader reader) {
    return std::string(reader.begin(), reader.size());
}

std::vector<uint8_t> bytes(capnp::Data::Reader reader) {
    return std::vector<uint8_t>(reader.begin(), reader.end());
}

capnp::Data::Reader data_of(const std::vector<uint8_t>& bytes) {
    return capnp::Data::Reader(bytes.data(), bytes.size());
}

void encode_strings(const std::vector<std::string>& strings, capnp::List<capnp::Text>::Builder out) {
    for (size_t i = 0; i < strings.size(); ++i) {
        out.set(static_cast<unsigned>(i), strings[i]);
    }
}

std::vector<std::string> decode_strings(capnp::List<capnp::Text>::Reader in) {
    std::vector<std::string> strings;
    strings.reserve(in.size());
    for (auto item : in) {
        strings.push_back(text(item));
    }
    return strings;
}

schema::Schedule::Reason encode_reason(ScheduleEvent::Reason reason) {
    switch (reason) {
    case ScheduleEvent::Reason::Yield:
        return schema::Schedule::Reason::YIELD;
    case ScheduleEvent::Reason::Blocked:
        return schema::Schedule::Reason::BLOCKED;
    case ScheduleEvent::Reason::Exited:
        return schema::Schedule::Reason::EXITED;
    case ScheduleEvent::Reason::Preempted:
        return schema::Schedule::Reason::PREEMPTED;
    case ScheduleEvent::Reason::Started:
        return schema::Schedule::Reason::STARTED;
    }
    throw std::invalid_argument("unknown schedule reason");
}

ScheduleEvent::Reason decode_reason(schema::Schedule::Reason reason) {
    switch (reason) {
    case schema::Schedule::Reason::YIELD:
        return ScheduleEvent::Reason::Yield;
    case schema::Schedule::Reason::BLOCKED:
        return ScheduleEvent::Reason::Blocked;
    case schema::Schedule::Reason::EXITED:
        return ScheduleEvent::Reason::Exited;
    case schema::Schedule::Reason::PREEMPTED:
        return ScheduleEvent::Reason::Preempted;
    case schema::Schedule::Reason::STARTED:
        return ScheduleEvent::Reason::Started;
    }
    throw FormatDamage(FormatDamage::Kind::Corrupt,
                       fmt::format("unknown schedule reason {}", static_cast<int>(reason)));
}

schema::InheritedDescriptor::Kind encode_kind(InheritedDescriptor::Kind kind) {
    switch (kind) {
    case InheritedDescriptor::Kind::File:
        return schema::InheritedDescriptor::Kind::FILE;
    case InheritedDescriptor::Kind::Directory:
        return schema::InheritedDescriptor::Kind::DIRECTORY;
    case InheritedDescriptor::Kind::Pipe:
        return schema::InheritedDescriptor::Kind::PIPE;
    case InheritedDescriptor::Kind::Socket:
        return schema::InheritedDescriptor::Kind::SOCKET;
    }
    throw std::invalid_argument("unknown descriptor kind");
}

InheritedDescriptor::Kind inherited_kind(schema::InheritedDescriptor::Kind kind) {
    switch (kind) {
    case schema::InheritedDescriptor::Kind::FILE:
        return InheritedDescriptor::Kind::File;
    case schema::InheritedDescriptor::Kind::DIRECTORY:
        return InheritedDescriptor::Kind::Directory;
    case schema::InheritedDescriptor::Kind::PIPE:
        return InheritedDescriptor::Kind::Pipe;
    case schema::InheritedDescriptor::Kind::SOCKET:
        return InheritedDescriptor::Kind::Socket;
    }
    throw FormatDamage(FormatDamage::Kind::Corrupt,
                       fmt::format("unknown inherited descriptor kind {}", static_cast<int>(kind)));
}

void encode_payload(const ScheduleEvent& in, schema::Event::Builder out) {
    auto schedule = out.initSchedule();
    schedule.setPreviousTid(in.previous_tid);
    schedule.setReason(encode_reason(in.reason));
}

void encode_payload(const SyscallEvent& in, schema::Event::Builder out) {
    auto syscall = out.initSyscall();
    syscall.setNumber(in.number);
    auto args = syscall.initArgs(static_cast<unsigned>(in.args.size()));
    for (size_t i = 0; i < in.args.size(); ++i) {
        args.set(static_cast<unsigned>(i), in.args[i]);
    }
    syscall.setResult(in.result);
    syscall.setEmulated(in.emulated);
    auto writes = syscall.initMemoryWrites(static_cast<unsigned>(in.memory_writes.size()));
    for (size_t i = 0; i < in.memory_writes.size(); ++i) {
        writes[static_cast<unsigned>(i)].setAddress(in.memory_writes[i].address);
        writes[static_cast<unsigned>(i)].setData(data_of(in.memory_writes[i].data));
    }
    syscall.setBuffered(in.buffered);
    auto paths = syscall.initPaths(static_cast<unsigned>(in.paths.size()));
    for (size_t i = 0; i < in.paths.size(); ++i) {
        paths.set(static_cast<unsigned>(i), in.paths[i]);
    }
}

void encode_payload(const SignalEvent& in, schema::Event::Builder out) {
    auto signal = out.initSignal();
    signal.setNumber(in.number);
    signal.setCode(in.code);
    signal.setSenderPid(in.sender_pid);
    signal.setFatal(in.fatal);
    signal.setOutside(in.outside);
    signal.setSenderUid(in.sender_uid);
}

void encode_payload(const ThreadStartEvent& in, schema::Event::Builder out) {
    auto start = out.initThreadStart();
    start.setParentTid(in.parent_tid);
    start.setNewProcess(in.new_process);
}

void encode_payload(const ThreadExitEvent& in, schema::Event::Builder out) {
    auto exit = out.initThreadExit();
    exit.setStatus(in.status);
    exit.setProcessExit(in.process_exit);
}

void encode_payload(const ExecEvent& in, schema::Event::Builder out) {
    auto exec = out.initExec();
    exec.setPath(in.path);
    encode_strings(in.argv, exec.initArgv(static_cast<unsigned>(in.argv.size())));
    exec.setSha256(in.sha256);
}

void encode_payload(const RdtscEvent& in, schema::Event::Builder out) {
    auto rdtsc = out.initRdtsc();
    rdtsc.setValue(in.value);
    rdtsc.setWithProcessorId(in.with_processor_id);
}

void encode_payload(const CpuidEvent& in, schema::Event::Builder out) {
    auto cpuid = out.initCpuid();
    cpuid.setLeaf(in.leaf);
    cpuid.setSubleaf(in.subleaf);
    cpuid.setEax(in.eax);
    cpuid.setEbx(in.ebx);
    cpuid.setEcx(in.ecx);
    cpuid.setEdx(in.edx);
}

void encode_payload(const StdioEvent& in, schema::Event::Builder out) {
    auto stdio = out.initStdio();
    stdio.setFd(in.fd);
    stdio.setData(data_of(in.data));
}

EventPayload decode_payload(schema::Event::Reader in) {
    switch (in.which()) {
    case schema::Event::SCHEDULE: {
        auto schedule = in.getSchedule();
        return ScheduleEvent{schedule.getPreviousTid(), decode_reason(schedule.getReason())};
    }
    case schema::Event::SYSCALL: {
        auto syscall = in.getSyscall();
        SyscallEvent out;
        out.number = syscall.getNumber();
        for (uint64_t arg : syscall.getArgs()) {
            out.args.push_back(arg);
        }
        out.result = syscall.getResult();
        out.emulated = syscall.getEmulated();
        for (auto write : syscall.getMemoryWrites()) {
            out.memory_writes.push_back(MemoryWrite{write.getAddress(), bytes(write.getData())});
        }
        out.buffered = syscall.getBuffered();
        for (auto path : syscall.getPaths()) {
            out.paths.emplace_back(path.cStr(), path.size());
        }
        return out;
    }
    case schema::Event::SIGNAL: {
        auto signal = in.getSignal();
        return SignalEvent{signal.getNumber(), signal.getCode(),    signal.getSenderPid(),
                           signal.getFatal(),  signal.getOutside(), signal.getSenderUid()};
    }
    case schema::Event::THREAD_START: {
        auto start = in.getThreadStart();
        return ThreadStartEvent{start.getParentTid(), start.getNewProcess()};
    }
    case schema::Event::THREAD_EXIT: {
        auto exit = in.getThreadExit();
        return ThreadExitEvent{exit.getStatus(), exit.getProcessExit()};
    }
    case schema::Event::EXEC: {
        auto exec = in.getExec();
        return ExecEvent{text(exec.getPath()), decode_strings(exec.getArgv()), text(exec.getSha256())};
    }
    case schema::Event::RDTSC: {
        auto rdtsc = in.getRdtsc();
        return RdtscEvent{rdtsc.getValue(), rdtsc.getWithProcessorId()};
    }
    case schema::Event::CPUID: {
        auto cpuid = in.getCpuid();
        return CpuidEvent{cpuid.getLeaf(), cpuid.getSubleaf(), cpuid.getEax(),
                          cpuid.getEbx(),  cpuid.getEcx(),     cpuid.getEdx()};
    }
    case schema::Event::STDIO: {
        auto stdio = in.getStdio();
        return StdioEvent{stdio.getFd(), bytes(stdio.getData())};
    }
    }
    throw FormatDamage(FormatDamage::Kind::Corrupt,
                       fmt::format("unknown event kind {}", static_cast<int>(in.which())));
}

} // namespace

void encode_event(const Event& event, schema::Event::Builder out) {
    out.setTime(event.time);
    out.setTid(event.tid);
    out.setPid(event.pid);
    std::visit([&out](const auto& payload) { encode_payload(payload, out); }, event.payload);
}

Event decode_event(schema::Event::Reader in) {
    Event event;
    event.time = in.getTime();
    event.tid = in.getTid();
    event.pid = in.getPid();
    event.payload = decode_payload(in);
    return event;
}

void encode_meta(const RecordingMeta& meta, schema::RecordingMeta::Builder out) {
    out.setFormatVersion(meta.format_version);
    out.setId(meta.id);
    out.setName(meta.name);
    encode_strings(meta.argv, out.initArgv(static_cast<unsigned>(meta.argv.size())));
    encode_strings(meta.env, out.initEnv(static_cast<unsigned>(meta.env.size())));
    out.setCwd(meta.cwd);
    out.setHermitVersion(meta.hermit_version);
    out.setStartedAtUnixMs(meta.started_at_unix_ms);
    auto config = out.initConfig();
    config.setSeed(meta.config.seed);
    config.setEpochNs(meta.config.epoch_ns);
    config.setChaos(meta.config.chaos);
    config.setSchedHeuristic(meta.config.sched_heuristic);
    config.setPctDepth(meta.config.pct_depth);
    config.setPreemptionTimeout(meta.config.preemption_timeout);
    config.setStrict(meta.config.strict);
    config.setNamespaces(meta.config.namespaces);
    auto host = out.initHost();
    host.setKernelRelease(meta.host.kernel_release);
    host.setCpuidFaulting(meta.host.cpuid_faulting);
    host.setTscTrapping(meta.host.tsc_trapping);
    host.setPmuAvailable(meta.host.pmu_available);
    host.setCpuCount(meta.host.cpu_count);
    out.setFinished(meta.finished);
    out.setExitStatus(meta.exit_status);
    out.setEventCount(meta.event_count);
    out.setThreadCount(meta.thread_count);
    out.setGuestDurationNs(meta.guest_duration_ns);
    auto files = out.initFiles(static_cast<unsigned>(meta.files.size()));
    for (size_t i = 0; i < meta.files.size(); ++i) {
        auto file = files[static_cast<unsigned>(i)];
        file.setPath(meta.files[i].path);
        file.setSha256(meta.files[i].sha256);
        file.setSize(meta.files[i].size);
        file.setOffset(meta.files[i].offset);
        file.setOnlyRead(meta.files[i].only_read);
    }
    auto descriptors = out.initInheritedDescriptors(static_cast<unsigned>(meta.inherited_descriptors.size()));
    for (size_t i = 0; i < meta.inherited_descriptors.size(); ++i) {
        const InheritedDescriptor& descriptor = meta.inherited_descriptors[i];
        auto encoded = descriptors[static_cast<unsigned>(i)];
        encoded.setFd(descriptor.fd);
        encoded.setKind(encode_kind(descriptor.kind));
        encoded.setStatusFlags(descriptor.status_flags);
    }
    out.setStdinOffset(meta.stdin_offset);
    auto trapped = out.initTrappedDescriptors(static_cast<unsigned>(meta.trapped_descriptors.size()));
    for (size_t i = 0; i < meta.trapped_descriptors.size(); ++i) {
        trapped.set(static_cast<unsigned>(i), meta.trapped_descriptors[i]);
    }
    auto system_files = out.initSystemFiles(static_cast<unsigned>(meta.system_files.size()));
    for (size_t i = 0; i < meta.system_files.size(); ++i) {
        auto file = system_files[static_cast<unsigned>(i)];
        file.setPath(meta.system_files[i].path);
        file.setSha256(meta.system_files[i].sha256);
        file.setSize(meta.system_files[i].size);
    }
}

RecordingMeta decode_meta(schema::RecordingMeta::Reader in) {
    RecordingMeta meta;
    meta.format_version = in.getFormatVersion();
    meta.id = text(in.getId());
    meta.name = text(in.getName());
    meta.argv = decode_strings(in.getArgv());
    meta.env = decode_strings(in.getEnv());
    meta.cwd = text(in.getCwd());
    meta.hermit_version = text(in.getHermitVersion());
    meta.started_at_unix_ms = in.getStartedAtUnixMs();
    auto config = in.getConfig();
    meta.config.seed = config.getSeed();
    meta.config.epoch_ns = config.getEpochNs();
    meta.config.chaos = config.getChaos();
    meta.config.sched_heuristic = text(config.getSchedHeuristic());
    meta.config.pct_depth = config.getPctDepth();
    meta.config.preemption_timeout = config.getPreemptionTimeout();
    meta.config.strict = config.getStrict();
    meta.config.namespaces = config.getNamespaces();
    auto host = in.getHost();
    meta.host.kernel_release = text(host.getKernelRelease());
    meta.host.cpuid_faulting = host.getCpuidFaulting();
    meta.host.tsc_trapping = host.getTscTrapping();
    meta.host.pmu_available = host.getPmuAvailable();
    meta.host.cpu_count = host.getCpuCount();
    meta.finished = in.getFinished();
    meta.exit_status = in.getExitStatus();
    meta.event_count = in.getEventCount();
    meta.thread_count = in.getThreadCount();
    meta.guest_duration_ns = in.getGuestDurationNs();
    for (auto file : in.getFiles()) {
        meta.files.push_back(RecordedFile{text(file.getPath()), text(file.getSha256()), file.getSize(),
                                          file.getOffset(), file.getOnlyRead()});
    }
    for (auto descriptor : in.getInheritedDescriptors()) {
        meta.inherited_descriptors.push_back(InheritedDescriptor{
            descriptor.getFd(), inherited_kind(descriptor.getKind()), descriptor.getStatusFlags()});
    }
    meta.stdin_offset = in.getStdinOffset();
    for (int32_t fd : in.getTrappedDescriptors()) {
        meta.trapped_descriptors.push_back(fd);
    }
    for (auto file : in.getSystemFiles()) {
        meta.system_files.push_back(SystemFile{text(file.getPath()), text(file.getSha256()), file.getSize()});
    }
    return meta;
}

std::vector<uint8_t> encode_batch(uint64_t first_index, std::span<const Event> events) {
    capnp::MallocMessageBuilder message;
    auto batch = message.initRoot<schema::EventBatch>();
    batch.setFirstIndex(first_index);
    auto list = batch.initEvents(static_cast<unsigned>(events.size()));
    for (size_t i = 0; i < events.size(); ++i) {
        encode_event(events[i], list[static_cast<unsigned>(i)]);
    }
    auto words = capnp::messageToFlatArray(message);
    auto flat = words.asBytes();
    return std::vector<uint8_t>(flat.begin(), flat.end());
}

std::vector<Event> decode_batch(std::span<const uint8_t> bytes, uint64_t expected_first_index) {
    if (bytes.size() % sizeof(capnp::word) != 0) {
        throw FormatDamage(FormatDamage::Kind::Corrupt, "event batch is not a whole number of words");
    }
    // The decompressed buffer has no alignment guarantee that capnp may rely on; copy into words.
    auto words = kj::heapArray<capnp::word>(bytes.size() / sizeof(capnp::word));
    std::memcpy(words.begin(), bytes.data(), bytes.size());
    capnp::ReaderOptions options;
    // Bounded by the message itself (plus slack for default-valued pointers) so a loop of far pointers
    // or a deep list cannot amplify into unbounded work.
    options.traversalLimitInWords = words.size() * 2 + 1024;
    options.nestingLimit = kNestingLimit;
    try {
        capnp::FlatArrayMessageReader reader(words.asPtr(), options);
        if (reader.getEnd() != words.end()) {
            throw FormatDamage(FormatDamage::Kind::Corrupt, "event batch has trailing bytes");
        }
        auto batch = reader.getRoot<schema::EventBatch>();
        if (batch.getFirstIndex() != expected_first_index) {
            throw FormatDamage(FormatDamage::Kind::Corrupt,
                               fmt::format("frame starts at event {} but {} was expected",
                                           batch.getFirstIndex(), expected_first_index));
        }
        std::vector<Event> events;
        auto list = batch.getEvents();
        if (list.size() == 0) {
            throw FormatDamage(FormatDamage::Kind::Corrupt, "frame holds no events");
        }
        events.reserve(list.size());
        for (auto event : list) {
            events.push_back(decode_event(event));
        }
        return events;
    } catch (const kj::Exception& exception) {
        throw FormatDamage(FormatDamage::Kind::Corrupt,
                           fmt::format("malformed event batch: {}", exception.getDescription().cStr()));
    }
}

} // namespace hermit
