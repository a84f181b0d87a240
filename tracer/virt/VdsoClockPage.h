#pragma once
// VdsoClockPage: the vDSO's clock_gettime answered in the guest, without a ptrace stop, yet from the
// virtual clock. Python, for one, reads the clock hundreds of times per run, and each trapped read cost a
// stop (VdsoPatcher makes them syscalls).
//
// At the first syscall the Virtualizer handles in a process after its exec, the process gets one page at
// the fixed address kAddress (mapped by a syscall injected there; a fixed address leaves the guest's own
// mmap layout alone, and forked children inherit it): the clock values of the last stop, one per clock
// id, and a call counter, then code that clock_gettime's vDSO entry jumps to. A call of a clock the page
// holds adds 1 to the counter and returns value + counter * kEventStepNs: exactly what the trapped call
// would have returned, since each trapped call ticks the clock once; other clocks (CPU clocks of other
// processes, invalid ids) still make the syscall. At every later syscall the Virtualizer handles in that
// process, fold() moves the virtual clock by the calls made since (one tick each), and before any of its
// threads resumes after the clock moved, refresh() writes the clock's values. So time stays a pure
// function of the guest's progress, a guest spinning on clock_gettime sees it advance, and the values are
// exactly those of trapped calls.

#include "VirtualClock.h"

#include <cstdint>
#include <map>
#include <vector>

#include <sys/types.h>

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class VdsoClockPage {
public:
    static constexpr uint64_t kAddress = 0x100000000000; // 16 TiB: far from where programs map anything
    static constexpr uint64_t kCodeOffset = 0x100;
    static constexpr int kClocks = 12; // clock ids 0 to 11; others go to the kernel

    // The machine code that clock_gettime's entry jumps to (position-dependent: it addresses kAddress).
    static std::vector<uint8_t> code();
    // The jump written over a clock_gettime entry of the vDSO.
    static std::vector<uint8_t> entry_jump();

    // After an exec: the process's vDSO clock_gettime entries, to redirect once the page exists.
    void on_exec(pid_t host_pid, std::vector<uint64_t> clock_gettime_entries);
    // At the entry stop of a syscall the Virtualizer handles, before its clock tick: maps the page of a
    // process exec'd since, or ticks `clock` once per fast call made since the page was last written.
    void fold(Task& task, VirtualClock& clock);
    // The process exec'd and its page is mapped at its next fold(), by an injected mmap (a ptrace stop).
    bool maps_at_next_fold(pid_t host_pid) const { return unmapped_.contains(host_pid); }
    // Before a thread resumes: when `clock` moved since the page of its process was last written (a
    // syscall, a timed wait, a timer, another process), folds and writes the values of `clock`.
    void refresh(Task& task, VirtualClock& clock);

private:
    struct ProcessPage {
        bool present = false;
        uint64_t written_at = UINT64_MAX; // the clock's elapsed ns when the page was written
        uint64_t folded_calls = 0;        // calls in the page already ticked by fold()
        bool folded_at_this_stop = false; // fold() read the counter, and the guest has not run since
    };

    bool map_page(Task& task, const std::vector<uint64_t>& entries);
    // The process's state; a process not seen since its fork or exec is probed for the page.
    ProcessPage& page_of(Task& task);

    std::map<pid_t, std::vector<uint64_t>> unmapped_; // processes exec'd since, by host pid
    std::map<pid_t, ProcessPage> processes_;
};

} // namespace hermit::tracer::virt
