#include "EventText.h"

#include <QStringList>

#include <cstring>
#include <string.h>

namespace hermit::gui {

namespace {

constexpr int kLargestErrno = 4095; // the kernel returns -1..-4095 for errors
constexpr qsizetype kDataPreviewBytes = 48;

QString syscall_name_of(int number, const SyscallNameLookup& lookup) {
    QString name = lookup ? lookup(number) : QString();
    return name.isEmpty() ? fallback_syscall_name(number) : name;
}

QString hex(uint64_t value) {
    return QStringLiteral("0x") + QString::number(value, 16);
}

QString errno_text(int error) {
    const char* name = strerrorname_np(error);
    return name ? QString::fromLatin1(name) : QStringLiteral("errno %1").arg(error);
}

QString signal_text(int number) {
    const char* name = sigabbrev_np(number);
    return name ? QStringLiteral("SIG") + QString::fromLatin1(name) : QStringLiteral("signal %1").arg(number);
}

QString result_text(int64_t result) {
    if (result < 0 && result >= -kLargestErrno) {
        const int error = static_cast<int>(-result);
        return QStringLiteral("-1 %1 (%2)")
            .arg(errno_text(error), QString::fromLocal8Bit(std::strerror(error)));
    }
    return QString::number(result);
}

// Printable ASCII as is, everything else escaped, cut after a preview length.
QString data_preview(const std::vector<uint8_t>& data) {
    QString text;
    const auto shown = std::min<qsizetype>(static_cast<qsizetype>(data.size()), kDataPreviewBytes);
    for (qsizetype i = 0; i < shown; ++i) {
        const uint8_t byte = data[static_cast<size_t>(i)];
        if (byte == '\n') {
            text += QStringLiteral("\\n");
        } else if (byte == '"' || byte == '\\') {
            text += QLatin1Char('\\');
            text += QLatin1Char(static_cast<char>(byte));
        } else if (byte >= 0x20 && byte < 0x7f) {
            text += QLatin1Char(static_cast<char>(byte));
        } else {
            text += QStringLiteral("\\x%1").arg(byte, 2, 16, QLatin1Char('0'));
        }
    }
    text = QLatin1Char('"') + text + QLatin1Char('"');
    if (static_cast<qsizetype>(data.size()) > shown) {
        text += QStringLiteral("...");
    }
    return text;
}

QString stream_name(int fd) {
    if (fd == 1) {
        return QStringLiteral("stdout");
    }
    if (fd == 2) {
        return QStringLiteral("stderr");
    }
    return QStringLiteral("fd %1").arg(fd);
}

struct Describer {
    const SyscallNameLookup& syscall_name;

    QString operator()(const ScheduleEvent& e) const {
        return QStringLiteral("run token from tid %1 (%2)")
            .arg(e.previous_tid)
            .arg(schedule_reason_name(e.reason));
    }
    QString operator()(const SyscallEvent& e) const {
        QStringList args;
        for (uint64_t arg : e.args) {
            args << hex(arg);
        }
        QString text = QStringLiteral("%1(%2) = %3")
                           .arg(syscall_name_of(e.number, syscall_name), args.join(QStringLiteral(", ")),
                                result_text(e.result));
        if (e.buffered) {
            text += QStringLiteral(" [buffered]");
        }
        return e.emulated ? text + QStringLiteral(" [emulated]") : text;
    }
    QString operator()(const SignalEvent& e) const {
        QString text =
            QStringLiteral("%1 code %2 from pid %3").arg(signal_text(e.number)).arg(e.code).arg(e.sender_pid);
        return e.fatal ? text + QStringLiteral(" (fatal)") : text;
    }
    QString operator()(const ThreadStartEvent& e) const {
        return e.new_process ? QStringLiteral("process forked by tid %1").arg(e.parent_tid)
                             : QStringLiteral("thread started by tid %1").arg(e.parent_tid);
    }
    QString operator()(const ThreadExitEvent& e) const {
        QString text = QStringLiteral("exit status %1").arg(e.status);
        return e.process_exit ? text + QStringLiteral(" (last thread of the process)") : text;
    }
    QString operator()(const ExecEvent& e) const {
        QStringList argv;
        for (const std::string& arg : e.argv) {
            argv << QString::fromStdString(arg);
        }
        return QStringLiteral("exec %1 [%2]")
            .arg(QString::fromStdString(e.path), argv.join(QStringLiteral(" ")));
    }
    QString operator()(const RdtscEvent& e) const {
        return QStringLiteral("%1 = %2").arg(e.with_processor_id ? "rdtscp" : "rdtsc").arg(e.value);
    }
    QString operator()(const CpuidEvent& e) const {
        return QStringLiteral("cpuid %1/%2 = %3 %4 %5 %6")
            .arg(hex(e.leaf), hex(e.subleaf), hex(e.eax), hex(e.ebx), hex(e.ecx), hex(e.edx));
    }
    QString operator()(const StdioEvent& e) const {
        return QStringLiteral("%1 %2 bytes %3")
            .arg(stream_name(e.fd))
            .arg(e.data.size())
            .arg(data_preview(e.data));
    }
};

// Lines that only the details panel shows, after the common header.
struct DetailLines {
    const SyscallNameLookup& syscall_name;

    QStringList operator()(const SyscallEvent& e) const {
        QStringList lines;
        lines << QStringLiteral("syscall: %1 (number %2)")
                     .arg(syscall_name_of(e.number, syscall_name))
                     .arg(e.number);
        for (size_t i = 0; i < e.args.size(); ++i) {
            lines << QStringLiteral("  arg%1: %2 (%3)")
                         .arg(i)
                         .arg(hex(e.args[i]))
                         .arg(static_cast<int64_t>(e.args[i]));
        }
        lines << QStringLiteral("result: %1").arg(result_text(e.result));
        lines << QStringLiteral("emulated: %1").arg(e.emulated ? "yes (hermit produced the result)" : "no");
        if (e.buffered) {
            lines << QStringLiteral("buffered: yes (answered in the guest, without a stop)");
        }
        for (const std::string& path : e.paths) {
            lines << QStringLiteral("  path: %1").arg(QString::fromStdString(path));
        }
        for (const MemoryWrite& write : e.memory_writes) {
            lines << QStringLiteral("  wrote %1 bytes at %2: %3")
                         .arg(write.data.size())
                         .arg(hex(write.address), data_preview(write.data));
        }
        return lines;
    }
    QStringList operator()(const SignalEvent& e) const {
        return {QStringLiteral("signal: %1 (%2)").arg(signal_text(e.number)).arg(e.number),
                QStringLiteral("si_code: %1").arg(e.code), QStringLiteral("sender pid: %1").arg(e.sender_pid),
                QStringLiteral("fatal: %1").arg(e.fatal ? "yes" : "no")};
    }
    QStringList operator()(const ExecEvent& e) const {
        QStringList lines{QStringLiteral("path: %1").arg(QString::fromStdString(e.path))};
        for (size_t i = 0; i < e.argv.size(); ++i) {
            lines << QStringLiteral("  argv[%1]: %2").arg(i).arg(QString::fromStdString(e.argv[i]));
        }
        lines << QStringLiteral("sha256: %1").arg(QString::fromStdString(e.sha256));
        return lines;
    }
    template <typename Other> QStringList operator()(const Other& e) const {
        return {Describer{syscall_name}(e)};
    }
};

} // namespace

QString fallback_syscall_name(int number) {
    return QStringLiteral("syscall %1").arg(number);
}

QString event_description(const Event& event, const SyscallNameLookup& syscall_name) {
    return std::visit(Describer{syscall_name}, event.payload);
}

QString event_details(const Event& event, uint64_t index, const SyscallNameLookup& syscall_name) {
    QStringList lines{QStringLiteral("event: %1").arg(index),
                      QStringLiteral("kind: %1").arg(QString::fromLatin1(event_kind_name(event.payload))),
                      QStringLiteral("time: %1 ns").arg(event.time),
                      QStringLiteral("thread: pid %1 / tid %2").arg(event.pid).arg(event.tid)};
    lines << std::visit(DetailLines{syscall_name}, event.payload);
    return lines.join(QLatin1Char('\n'));
}

} // namespace hermit::gui
