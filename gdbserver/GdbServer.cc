#include "GdbServer.h"

#include "Amd64Registers.h"
#include "Amd64TargetDescription.h"
#include "GdbProtocolNumbers.h"
#include "Hex.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <csignal>

namespace hermit::gdbserver {

namespace {

constexpr std::string_view kErrorInvalidArgument = "E16";
constexpr std::string_view kErrorNoSuchThread = "E01";
constexpr std::string_view kErrorFault = "E0e";
constexpr std::string_view kErrorFailed = "E02";
// The most data one reply may carry, leaving room for hex or escaping to double it.
constexpr size_t kMaxReplyData = kMaxPacketSize / 2 - 16;

// Splits "a<separator>b" at the first separator; `rest` is empty when there is none.
std::string_view split_first(std::string_view text, char separator, std::string_view& rest) {
    size_t at = text.find(separator);
    if (at == std::string_view::npos) {
        rest = {};
        return text;
    }
    rest = text.substr(at + 1);
    return text.substr(0, at);
}

// Parses "<address>,<length>" as used by m, M, X and Z.
bool parse_address_length(std::string_view text, uint64_t& address, uint64_t& length) {
    std::string_view length_text;
    auto parsed_address = parse_hex_number(split_first(text, ',', length_text));
    auto parsed_length = parse_hex_number(length_text);
    if (!parsed_address || !parsed_length) {
        return false;
    }
    address = *parsed_address;
    length = *parsed_length;
    return true;
}

std::string hex_byte(int value) {
    return fmt::format("{:02x}", value & 0xff);
}

std::string_view watch_key(WatchKind kind) {
    switch (kind) {
    case WatchKind::Write:
        return "watch";
    case WatchKind::Read:
        return "rwatch";
    case WatchKind::Access:
        return "awatch";
    }
    return "watch";
}

// A packet reply chunk of qXfer data: 'm' when more follows, 'l' for the last one.
std::string xfer_chunk(std::string_view document, uint64_t offset, uint64_t length) {
    if (offset >= document.size()) {
        return "l";
    }
    size_t count = static_cast<size_t>(std::min<uint64_t>({length, kMaxReplyData, document.size() - offset}));
    bool last = offset + count >= document.size();
    return (last ? "l" : "m") + escape_binary(document.substr(static_cast<size_t>(offset), count));
}

std::string host_io_error(int host_errno) {
    return fmt::format("F-1,{}", format_hex_number(static_cast<uint64_t>(gdb_errno_from_host(host_errno))));
}

void append_big_endian(std::string& out, uint64_t value, size_t bytes) {
    for (size_t i = bytes; i-- > 0;) {
        out.push_back(static_cast<char>(value >> (8 * i) & 0xff));
    }
}

// struct stat in the File-I/O protocol's fixed big-endian layout (gdb manual, "struct stat").
std::string encode_protocol_stat(const struct ::stat& st) {
    std::string out;
    append_big_endian(out, st.st_dev, 4);
    append_big_endian(out, st.st_ino, 4);
    append_big_endian(out, st.st_mode, 4);
    append_big_endian(out, st.st_nlink, 4);
    append_big_endian(out, st.st_uid, 4);
    append_big_endian(out, st.st_gid, 4);
    append_big_endian(out, st.st_rdev, 4);
    append_big_endian(out, static_cast<uint64_t>(st.st_size), 8);
    append_big_endian(out, static_cast<uint64_t>(st.st_blksize), 8);
    append_big_endian(out, static_cast<uint64_t>(st.st_blocks), 8);
    append_big_endian(out, static_cast<uint64_t>(st.st_atime), 4);
    append_big_endian(out, static_cast<uint64_t>(st.st_mtime), 4);
    append_big_endian(out, static_cast<uint64_t>(st.st_ctime), 4);
    return out;
}

} // namespace

GdbServer::GdbServer(Target& target, Connection& connection) : target_(target), connection_(connection) {}

GdbServer::Outcome GdbServer::serve() {
    try {
        while (!outcome_) {
            std::optional<std::string> request = connection_.read_request();
            if (!request) {
                spdlog::info("gdbserver: gdb disconnected");
                return Outcome::Disconnected;
            }
            std::optional<std::string> reply = handle(*request);
            if (reply) {
                connection_.send_reply(*reply);
            }
        }
    } catch (const TransportError& error) {
        // The connection broke (gdb vanished while we were replying); the session is over either way.
        spdlog::info("gdbserver: connection to gdb lost: {}", error.reason());
        return Outcome::Disconnected;
    }
    return *outcome_;
}

std::optional<std::string> GdbServer::handle(std::string_view request) {
    if (request.empty()) {
        return std::string();
    }
    std::string_view arguments = request.substr(1);
    switch (request.front()) {
    case '?':
        return stop_reply(target_.stop_reason());
    case '!':
        extended_ = target_.start_over() != nullptr;
        return extended_ ? "OK" : "";
    case 'q':
    case 'Q':
        if (request == "QStartNoAckMode") {
            // The OK still travels with acks; gdb switches after acknowledging it, and so do we.
            connection_.send_reply("OK");
            connection_.disable_acks();
            return std::nullopt;
        }
        return handle_query(request);
    case 'v':
        if (request.starts_with("vCont?")) {
            return std::string("vCont;c;C;s;S");
        }
        if (request.starts_with("vCont;")) {
            return handle_vcont(request.substr(6));
        }
        if (request.starts_with("vFile:")) {
            return handle_host_io(request.substr(6));
        }
        if (request.starts_with("vKill")) {
            return handle_kill();
        }
        if (request.starts_with("vRun;")) {
            return handle_run(); // the program and its arguments are the target's own
        }
        return std::string();
    case 'H':
        return handle_set_thread(arguments);
    case 'T':
        return handle_thread_alive(arguments);
    case 'g':
        return handle_read_registers();
    case 'G':
        return handle_write_registers(arguments);
    case 'p':
        return handle_read_register(arguments);
    case 'P':
        return handle_write_register(arguments);
    case 'm':
        return handle_read_memory(arguments);
    case 'M':
        return handle_write_memory(arguments, false);
    case 'X':
        return handle_write_memory(arguments, true);
    case 'c':
    case 'C':
    case 's':
    case 'S':
        return handle_legacy_resume(request);
    case 'b':
        if (request == "bc") {
            return handle_reverse(ResumeKind::Continue);
        }
        if (request == "bs") {
            return handle_reverse(ResumeKind::Step);
        }
        return std::string();
    case 'Z':
        return handle_breakpoint(arguments, true);
    case 'z':
        return handle_breakpoint(arguments, false);
    case 'D':
        return handle_detach();
    case 'k':
        handle_kill();
        return std::nullopt;
    default:
        return std::string();
    }
}

std::string GdbServer::handle_query(std::string_view request) {
    std::string_view rest;
    std::string_view name = split_first(request, ':', rest);
    if (name == "qSupported") {
        return handle_supported(rest);
    }
    if (name == "qXfer") {
        return handle_xfer(rest);
    }
    if (request == "qC") {
        auto thread = general_thread();
        return thread ? "QC" + format_thread(*thread) : std::string();
    }
    if (request == "qfThreadInfo") {
        return handle_thread_list();
    }
    if (request == "qsThreadInfo") {
        return "l";
    }
    if (request.starts_with("qThreadExtraInfo,")) {
        auto thread = parse_thread_id(request.substr(17));
        auto found = thread ? find_thread(*thread) : std::nullopt;
        return found ? hex_encode(target_.thread_extra_info(*found)) : std::string(kErrorNoSuchThread);
    }
    if (name == "qAttached") {
        Processes* processes = target_.processes();
        if (!processes) {
            return "";
        }
        auto pid = rest.empty() ? std::optional<uint64_t>(0) : parse_hex_number(rest);
        if (!pid) {
            return std::string(kErrorInvalidArgument);
        }
        return processes->attached(static_cast<int64_t>(*pid)) ? "1" : "0";
    }
    if (name == "qSymbol" || name == "QThreadEvents") {
        return "OK";
    }
    if (request.starts_with("qRcmd,")) {
        return handle_monitor(request.substr(6));
    }
    if (name == "qGetTLSAddr") {
        return handle_thread_local_address(rest);
    }
    return "";
}

std::string GdbServer::handle_thread_local_address(std::string_view arguments) {
    ThreadLocalStorage* storage = target_.thread_local_storage();
    if (!storage) {
        return "";
    }
    std::string_view rest;
    const auto thread = parse_thread_id(split_first(arguments, ',', rest));
    std::string_view link_map_text;
    const auto offset = parse_hex_number(split_first(rest, ',', link_map_text));
    const auto link_map = parse_hex_number(link_map_text);
    if (!thread || !offset || !link_map) {
        return std::string(kErrorInvalidArgument);
    }
    const auto found = find_thread(*thread);
    if (!found) {
        return std::string(kErrorNoSuchThread);
    }
    const std::optional<uint64_t> address = storage->thread_local_address(*found, *offset, *link_map);
    return address ? fmt::format("{:x}", *address) : std::string(kErrorInvalidArgument);
}

std::string GdbServer::handle_supported(std::string_view features) {
    gdb_features_.clear();
    while (!features.empty()) {
        std::string_view rest;
        gdb_features_.insert(std::string(split_first(features, ';', rest)));
        features = rest;
    }
    multiprocess_ = target_.processes() != nullptr && gdb_offered("multiprocess+");

    std::string reply =
        fmt::format("PacketSize={:x};QStartNoAckMode+;qXfer:features:read+;vContSupported+", kMaxPacketSize);
    if (target_.auxv()) {
        reply += ";qXfer:auxv:read+";
    }
    if (target_.exec_file()) {
        reply += ";qXfer:exec-file:read+";
    }
    if (ExecEvents* events = target_.exec_events()) {
        events->report_execs(gdb_offered("exec-events+"));
        if (gdb_offered("exec-events+")) {
            reply += ";exec-events+";
        }
    }
    if (target_.libraries()) {
        reply += ";qXfer:libraries-svr4:read+";
    }
    if (target_.reverse()) {
        reply += ";ReverseContinue+;ReverseStep+";
    }
    if (multiprocess_) {
        reply += ";multiprocess+";
    }
    if (target_.breakpoints()) {
        reply += ";swbreak+;hwbreak+";
    }
    return reply;
}

std::string GdbServer::handle_set_thread(std::string_view request) {
    if (request.empty()) {
        return std::string(kErrorInvalidArgument);
    }
    auto pattern = parse_thread_id(request.substr(1));
    if (!pattern) {
        return std::string(kErrorInvalidArgument);
    }
    bool is_pattern = pattern->tid == ThreadId::kAny || pattern->tid == ThreadId::kAll;
    if (!is_pattern && !find_thread(*pattern)) {
        return std::string(kErrorNoSuchThread);
    }
    if (request.front() == 'g') {
        general_thread_ = *pattern;
    } else if (request.front() == 'c') {
        continue_thread_ = *pattern;
    } else {
        return std::string(kErrorInvalidArgument);
    }
    return "OK";
}

std::string GdbServer::handle_thread_alive(std::string_view request) {
    auto thread = parse_thread_id(request);
    return thread && find_thread(*thread) ? "OK" : std::string(kErrorNoSuchThread);
}

std::string GdbServer::handle_thread_list() {
    std::string reply = "m";
    for (const ThreadId& thread : target_.threads()) {
        if (reply.size() > 1) {
            reply += ',';
        }
        reply += format_thread(thread);
    }
    // An empty 'm' would read as "more to come"; no threads is the end of the list.
    return reply.size() > 1 ? reply : "l";
}

std::string GdbServer::handle_read_registers() {
    auto thread = general_thread();
    if (!thread) {
        return std::string(kErrorNoSuchThread);
    }
    std::vector<uint8_t> bytes = target_.read_registers(*thread);
    return bytes.empty() ? std::string(kErrorFailed) : hex_encode(bytes.data(), bytes.size());
}

std::string GdbServer::handle_write_registers(std::string_view hex) {
    auto thread = general_thread();
    auto bytes = hex_decode(hex);
    if (!thread) {
        return std::string(kErrorNoSuchThread);
    }
    if (!bytes) {
        return std::string(kErrorInvalidArgument);
    }
    return target_.write_registers(*thread, *bytes) ? "OK" : std::string(kErrorFailed);
}

std::string GdbServer::handle_read_register(std::string_view request) {
    auto thread = general_thread();
    auto regno = parse_hex_number(request);
    if (!thread) {
        return std::string(kErrorNoSuchThread);
    }
    if (!regno || !amd64::register_info(static_cast<int>(*regno))) {
        return std::string(kErrorInvalidArgument);
    }
    auto bytes = target_.read_register(*thread, static_cast<int>(*regno));
    return bytes ? hex_encode(bytes->data(), bytes->size()) : std::string(kErrorFailed);
}

std::string GdbServer::handle_write_register(std::string_view request) {
    std::string_view value;
    auto regno = parse_hex_number(split_first(request, '=', value));
    auto bytes = hex_decode(value);
    auto thread = general_thread();
    if (!thread) {
        return std::string(kErrorNoSuchThread);
    }
    if (!regno || !bytes || !amd64::register_info(static_cast<int>(*regno))) {
        return std::string(kErrorInvalidArgument);
    }
    return target_.write_register(*thread, static_cast<int>(*regno), *bytes) ? "OK"
                                                                             : std::string(kErrorFailed);
}

std::string GdbServer::handle_read_memory(std::string_view request) {
    uint64_t address = 0;
    uint64_t length = 0;
    if (!parse_address_length(request, address, length)) {
        return std::string(kErrorInvalidArgument);
    }
    std::vector<uint8_t> buffer(static_cast<size_t>(std::min<uint64_t>(length, kMaxReplyData)));
    size_t read = target_.read_memory(address, buffer);
    if (read == 0 && !buffer.empty()) {
        return std::string(kErrorFault);
    }
    return hex_encode(buffer.data(), std::min(read, buffer.size()));
}

std::string GdbServer::handle_write_memory(std::string_view request, bool binary) {
    std::string_view data;
    uint64_t address = 0;
    uint64_t length = 0;
    if (!parse_address_length(split_first(request, ':', data), address, length)) {
        return std::string(kErrorInvalidArgument);
    }
    std::vector<uint8_t> bytes;
    if (binary) {
        // The connection already removed the '}' escapes, so the data is raw bytes.
        bytes.assign(data.begin(), data.end());
    } else {
        auto decoded = hex_decode(data);
        if (!decoded) {
            return std::string(kErrorInvalidArgument);
        }
        bytes = std::move(*decoded);
    }
    if (bytes.size() != length) {
        return std::string(kErrorInvalidArgument);
    }
    if (bytes.empty()) {
        return "OK";
    }
    return target_.write_memory(address, bytes) ? "OK" : std::string(kErrorFault);
}

std::string GdbServer::handle_legacy_resume(std::string_view request) {
    char command = request.front();
    std::string_view arguments = request.substr(1);
    int signal = 0;
    if (command == 'C' || command == 'S') {
        std::string_view address;
        auto gdb_signal = parse_hex_number(split_first(arguments, ';', address));
        if (!gdb_signal) {
            return std::string(kErrorInvalidArgument);
        }
        signal = host_signal_from_gdb(static_cast<int>(*gdb_signal));
        arguments = address;
    }
    auto thread = find_thread(continue_thread_);
    if (!thread) {
        thread = general_thread();
    }
    if (!thread) {
        return std::string(kErrorNoSuchThread);
    }
    if (!arguments.empty()) {
        // "c ADDR" resumes at ADDR: move the program counter first.
        auto address = parse_hex_number(arguments);
        if (!address) {
            return std::string(kErrorInvalidArgument);
        }
        if (!target_.write_register(*thread, amd64::kRip, {reinterpret_cast<const uint8_t*>(&*address), 8})) {
            return std::string(kErrorFailed);
        }
    }
    bool step = command == 's' || command == 'S';
    ResumeRequest resume_request;
    resume_request.actions.push_back({*thread, step ? ResumeKind::Step : ResumeKind::Continue, signal});
    if (!step) {
        resume_request.actions.push_back({{ThreadId::kAll, ThreadId::kAll}, ResumeKind::Continue, 0});
    }
    return resume(resume_request);
}

std::string GdbServer::handle_vcont(std::string_view actions) {
    ResumeRequest request;
    while (!actions.empty()) {
        std::string_view rest;
        std::string_view action = split_first(actions, ';', rest);
        actions = rest;
        std::string_view thread_text;
        std::string_view verb = split_first(action, ':', thread_text);
        ThreadResume resume_action{{ThreadId::kAll, ThreadId::kAll}, ResumeKind::Continue, 0};
        if (!thread_text.empty()) {
            auto thread = parse_thread_id(thread_text);
            if (!thread) {
                return std::string(kErrorInvalidArgument);
            }
            resume_action.threads = *thread;
        }
        if (verb.empty()) {
            return std::string(kErrorInvalidArgument);
        }
        switch (verb.front()) {
        case 'c':
        case 's':
            break;
        case 'C':
        case 'S': {
            auto gdb_signal = parse_hex_number(verb.substr(1));
            if (!gdb_signal) {
                return std::string(kErrorInvalidArgument);
            }
            resume_action.signal = host_signal_from_gdb(static_cast<int>(*gdb_signal));
            break;
        }
        default:
            // Only the actions vCont? lists are accepted.
            return std::string(kErrorInvalidArgument);
        }
        resume_action.kind =
            verb.front() == 's' || verb.front() == 'S' ? ResumeKind::Step : ResumeKind::Continue;
        request.actions.push_back(resume_action);
    }
    if (request.actions.empty()) {
        return std::string(kErrorInvalidArgument);
    }
    return resume(request);
}

std::string GdbServer::handle_reverse(ResumeKind kind) {
    ReverseExecution* reverse = target_.reverse();
    if (!reverse) {
        return "";
    }
    auto thread = find_thread(continue_thread_);
    if (!thread) {
        thread = general_thread();
    }
    if (!thread) {
        return std::string(kErrorNoSuchThread);
    }
    return stop_reply(
        reverse->reverse_resume(kind, *thread, [this] { return connection_.interrupt_requested(); }));
}

std::string GdbServer::resume(const ResumeRequest& request) {
    return stop_reply(target_.resume(request, [this] { return connection_.interrupt_requested(); }));
}

std::string GdbServer::handle_breakpoint(std::string_view request, bool insert) {
    std::string_view rest;
    std::string_view type_text = split_first(request, ',', rest);
    // Conditions and commands (";X...") are evaluated by gdb, not by us; they are ignored here.
    std::string_view location = split_first(rest, ';', rest);
    uint64_t address = 0;
    uint64_t kind = 0;
    if (type_text.size() != 1 || !parse_address_length(location, address, kind)) {
        return std::string(kErrorInvalidArgument);
    }
    char type = type_text.front();
    if (type == '0' || type == '1') {
        Breakpoints* breakpoints = target_.breakpoints();
        if (!breakpoints) {
            return "";
        }
        BreakpointKind breakpoint_kind = type == '0' ? BreakpointKind::Software : BreakpointKind::Hardware;
        int gdb_kind = static_cast<int>(kind);
        bool ok = insert ? breakpoints->insert_breakpoint(breakpoint_kind, address, gdb_kind)
                         : breakpoints->remove_breakpoint(breakpoint_kind, address, gdb_kind);
        return ok ? "OK" : std::string(kErrorFailed);
    }
    if (type == '2' || type == '3' || type == '4') {
        Watchpoints* watchpoints = target_.watchpoints();
        if (!watchpoints) {
            return "";
        }
        WatchKind watch_kind = type == '2'   ? WatchKind::Write
                               : type == '3' ? WatchKind::Read
                                             : WatchKind::Access;
        bool ok = insert ? watchpoints->insert_watchpoint(watch_kind, address, kind)
                         : watchpoints->remove_watchpoint(watch_kind, address, kind);
        return ok ? "OK" : std::string(kErrorFailed);
    }
    return "";
}

std::string GdbServer::handle_monitor(std::string_view hex_command) {
    MonitorCommands* monitor = target_.monitor();
    if (!monitor) {
        return "";
    }
    auto command = hex_decode(hex_command);
    if (!command) {
        return std::string(kErrorInvalidArgument);
    }
    std::string output = monitor->run_monitor_command(std::string(command->begin(), command->end()));
    for (size_t offset = 0; offset < output.size(); offset += kMaxReplyData / 2) {
        connection_.send_console_output(std::string_view(output).substr(offset, kMaxReplyData / 2));
    }
    return "OK";
}

std::string GdbServer::handle_xfer(std::string_view request) {
    // request: "<object>:read:<annex>:<offset>,<length>"
    std::string_view rest;
    std::string_view object = split_first(request, ':', rest);
    std::string_view operation = split_first(rest, ':', rest);
    std::string_view annex = split_first(rest, ':', rest);
    uint64_t offset = 0;
    uint64_t length = 0;
    if (operation != "read") {
        return "";
    }
    if (!parse_address_length(rest, offset, length)) {
        return std::string(kErrorInvalidArgument);
    }
    if (object == "features") {
        if (annex != "target.xml") {
            return std::string("E00");
        }
        return xfer_chunk(amd64::target_description_xml(), offset, length);
    }
    if (object == "auxv" && target_.auxv()) {
        std::vector<uint8_t> auxv = target_.auxv()->read_auxv();
        return xfer_chunk(std::string_view(reinterpret_cast<const char*>(auxv.data()), auxv.size()), offset,
                          length);
    }
    if (object == "exec-file" && target_.exec_file()) {
        auto pid = annex.empty() ? std::optional<uint64_t>(0) : parse_hex_number(annex);
        if (!pid) {
            return std::string(kErrorInvalidArgument);
        }
        return xfer_chunk(target_.exec_file()->exec_file_path(static_cast<int64_t>(*pid)), offset, length);
    }
    if (object == "libraries-svr4" && target_.libraries()) {
        return xfer_chunk(target_.libraries()->libraries_svr4_xml(), offset, length);
    }
    return "";
}

std::string GdbServer::handle_host_io(std::string_view request) {
    HostIo* host_io = target_.host_io();
    if (!host_io) {
        return "";
    }
    std::string_view arguments;
    std::string_view operation = split_first(request, ':', arguments);
    std::vector<std::string_view> fields;
    while (!arguments.empty()) {
        std::string_view rest;
        fields.push_back(split_first(arguments, ',', rest));
        arguments = rest;
    }
    auto number = [&](size_t index) -> std::optional<uint64_t> {
        return index < fields.size() ? parse_hex_number(fields[index]) : std::nullopt;
    };
    auto result_reply = [](const HostIoResult& result) {
        return result.value < 0 ? host_io_error(result.error)
                                : "F" + format_hex_number(static_cast<uint64_t>(result.value));
    };
    if (operation == "open") {
        auto path = fields.empty() ? std::nullopt : hex_decode(fields[0]);
        auto flags = number(1);
        auto mode = number(2);
        if (!path || !flags || !mode) {
            return host_io_error(EINVAL);
        }
        return result_reply(host_io->open(std::string(path->begin(), path->end()),
                                          host_open_flags_from_gdb(static_cast<int>(*flags)),
                                          static_cast<uint32_t>(*mode)));
    }
    if (operation == "pread") {
        auto fd = number(0);
        auto count = number(1);
        auto offset = number(2);
        if (!fd || !count || !offset) {
            return host_io_error(EINVAL);
        }
        std::vector<uint8_t> data;
        HostIoResult result =
            host_io->pread(static_cast<int>(*fd),
                           static_cast<size_t>(std::min<uint64_t>(*count, kMaxReplyData)), *offset, data);
        if (result.value < 0) {
            return host_io_error(result.error);
        }
        return result_reply(result) + ";" +
               escape_binary(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
    }
    if (operation == "close") {
        auto fd = number(0);
        return fd ? result_reply(host_io->close(static_cast<int>(*fd))) : host_io_error(EINVAL);
    }
    if (operation == "fstat") {
        auto fd = number(0);
        if (!fd) {
            return host_io_error(EINVAL);
        }
        struct ::stat st {};
        HostIoResult result = host_io->fstat(static_cast<int>(*fd), st);
        if (result.value < 0) {
            return host_io_error(result.error);
        }
        std::string encoded = encode_protocol_stat(st);
        return fmt::format("F{};{}", format_hex_number(encoded.size()), escape_binary(encoded));
    }
    if (operation == "setfs") {
        auto pid = number(0);
        return pid ? result_reply(host_io->setfs(static_cast<int64_t>(*pid))) : host_io_error(EINVAL);
    }
    return "";
}

std::string GdbServer::handle_detach() {
    target_.detach();
    outcome_ = Outcome::Detached;
    return "OK";
}

std::string GdbServer::handle_kill() {
    target_.kill();
    if (!extended_) {
        outcome_ = Outcome::Killed;
    }
    return "OK";
}

std::string GdbServer::handle_run() {
    StartOver* starter = target_.start_over();
    const std::optional<StopReason> stop =
        extended_ && starter != nullptr ? starter->restart_program() : std::nullopt;
    return stop ? stop_reply(*stop) : std::string(kErrorInvalidArgument);
}

std::string GdbServer::stop_reply(const StopReason& stop) {
    std::string process_suffix =
        multiprocess_ ? ";process:" + format_hex_number(static_cast<uint64_t>(stop.thread.pid)) : "";
    switch (stop.kind) {
    case StopReason::Kind::Exited:
        return "W" + hex_byte(stop.exit_code) + process_suffix;
    case StopReason::Kind::Terminated:
        return "X" + hex_byte(gdb_signal_from_host(stop.signal)) + process_suffix;
    default:
        break;
    }
    // Later register and memory requests are about the thread that stopped.
    general_thread_ = stop.thread;
    int signal = stop.kind == StopReason::Kind::Signal ? stop.signal : SIGTRAP;
    std::string reply =
        "T" + hex_byte(gdb_signal_from_host(signal)) + "thread:" + format_thread(stop.thread) + ";";
    switch (stop.kind) {
    case StopReason::Kind::SoftwareBreakpoint:
        if (gdb_offered("swbreak+")) {
            reply += "swbreak:;";
        }
        break;
    case StopReason::Kind::HardwareBreakpoint:
        if (gdb_offered("hwbreak+")) {
            reply += "hwbreak:;";
        }
        break;
    case StopReason::Kind::Watchpoint:
        reply += fmt::format("{}:{};", watch_key(stop.watch_kind), format_hex_number(stop.watch_address));
        break;
    case StopReason::Kind::NoHistory:
        reply += stop.history_end == StopReason::HistoryEnd::Begin ? "replaylog:begin;" : "replaylog:end;";
        break;
    case StopReason::Kind::Exec:
        reply += "exec:" + hex_encode(stop.exec_path) + ";";
        break;
    default:
        break;
    }
    return reply;
}

std::optional<ThreadId> GdbServer::find_thread(const ThreadId& pattern) {
    for (const ThreadId& thread : target_.threads()) {
        if (pattern.matches(thread)) {
            return thread;
        }
    }
    return std::nullopt;
}

std::optional<ThreadId> GdbServer::general_thread() {
    return find_thread(general_thread_);
}

std::string GdbServer::format_thread(const ThreadId& thread) const {
    return format_thread_id(thread, multiprocess_);
}

} // namespace hermit::gdbserver
