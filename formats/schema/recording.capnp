@0xc3a7e1f2b4d59a61;
# The hermit recording format. A recording is a directory holding
#   meta.capnp.bin  one RecordingMeta message (unpacked Cap'n Proto, written at start, rewritten at end)
#   events.hrec     a stream of frames, each an lzma-compressed EventBatch (see formats/FrameCodec.h)
#   summary.hrec    optional: a RecordingIndex (frame index and per-event columns), written by finish()
#   files.pack      the copies of the files the guest read, one after another (RecordedFile.offset)
# Field numbers are never reused; a reader checks formatVersion before anything else.

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("hermit::schema");

# 6: calls made in the guest's syscall buffer (Syscall.buffered, paths); 7: no events of the opens of the
# random devices hermit mounts (every run and replay leaves them to the kernel); 8: buffered opens that
# made a new file (Syscall.buffered with a descriptor for its result)
const formatVersion :UInt32 = 9;

struct RecordingMeta {
  formatVersion @0 :UInt32;
  id @1 :Text;
  name @2 :Text;
  argv @3 :List(Text);
  env @4 :List(Text);
  cwd @5 :Text;
  hermitVersion @6 :Text;
  startedAtUnixMs @7 :Int64;   # host wall clock, informational only
  config @8 :RunConfig;
  host @9 :HostFacts;
  finished @10 :Bool;          # false while recording or when hermit died mid-run
  exitStatus @11 :Int32;       # shell-style: 128+N for a guest killed by signal N
  eventCount @12 :UInt64;
  threadCount @13 :UInt32;
  guestDurationNs @14 :UInt64; # logical time at exit
  files @15 :List(RecordedFile);
  inheritedDescriptors @16 :List(InheritedDescriptor); # the guest's open descriptors above 2 at start
  trappedDescriptors @17 :List(Int32); # descriptors whose reads and writes stop the guest from the start
  stdinOffset @18 :UInt64; # with a `files` entry named "<stdin>": stdin was that regular file, read from here
  systemFiles @19 :List(SystemFile);
}

struct RunConfig {
  seed @0 :UInt64;
  epochNs @1 :Int64;
  chaos @2 :Bool;
  schedHeuristic @3 :Text;     # "none", "random", "pct"
  pctDepth @4 :UInt32;
  preemptionTimeout @5 :Int64; # retired branches; -1 = disabled
  strict @6 :Bool;
  namespaces @7 :Bool;
}

struct HostFacts {
  kernelRelease @0 :Text;
  cpuidFaulting @1 :Bool;
  tscTrapping @2 :Bool;
  pmuAvailable @3 :Bool;
  cpuCount @4 :UInt32;
}

# A file the guest read, copied into the recording so replay works after it changes.
struct RecordedFile {
  path @0 :Text;
  sha256 @1 :Text; # of the copy's bytes
  size @2 :UInt64;
  offset @3 :UInt64; # where the copy starts in files.pack
  # No open of the recording could write to the file, by this name or another: a replay may let the guest
  # read the original while it still has these bytes. False in recordings made before it existed.
  onlyRead @4 :Bool;
}

# A file of the system (under /usr, /etc, /lib, ...) the guest opened, kept in the store's blobs by its
# SHA-256: a replay shows the guest these bytes at this path, whatever the system holds by then.
struct SystemFile {
  path @0 :Text;
  sha256 @1 :Text;
  size @2 :UInt64;
}

# A descriptor above 2 the guest inherited from whoever started hermit. Replay puts a stand-in of the
# same kind and access mode at the same number, so the guest's own descriptors get the same numbers.
struct InheritedDescriptor {
  fd @0 :Int32;
  kind @1 :Kind;
  statusFlags @2 :UInt32;      # fcntl(F_GETFL): access mode, O_APPEND, O_NONBLOCK
  enum Kind {
    file @0;                   # regular file, device or anything not listed below
    directory @1;
    pipe @2;
    socket @3;
  }
}

struct EventBatch {
  firstIndex @0 :UInt64;       # index of events[0] in the whole stream
  events @1 :List(Event);
}

# summary.hrec: one frame (the same framing as events.hrec) holding a RecordingIndex, written when a
# recording is finished. It is derived data: a reader that finds it missing, damaged or describing an
# events.hrec of another size ignores it and scans events.hrec instead.
struct RecordingIndex {
  eventsFileBytes @0 :UInt64;    # size of the events.hrec this index describes
  frames @1 :List(FrameEntry);   # every frame of events.hrec, in order
  threads @2 :List(ThreadEntry); # in order of first appearance
  eventTimes @3 :List(UInt64);   # one entry per event: Event.time
  eventTids @4 :List(Int32);     # Event.tid
  eventKinds @5 :List(UInt8);    # ordinal of the Event union member (schedule = 0, syscall = 1, ...)
}

struct FrameEntry {
  offset @0 :UInt64;
  firstIndex @1 :UInt64;
  eventCount @2 :UInt32;
}

struct ThreadEntry {
  tid @0 :Int32;
  pid @1 :Int32;                 # of the thread's first event
}

struct Event {
  time @0 :UInt64;             # logical nanoseconds since the epoch of the run
  tid @1 :Int32;               # guest-visible thread id (in the guest pid namespace)
  pid @2 :Int32;               # guest-visible process id
  union {
    schedule @3 :Schedule;
    syscall @4 :Syscall;
    signal @5 :Signal;
    threadStart @6 :ThreadStart;
    threadExit @7 :ThreadExit;
    exec @8 :Exec;
    rdtsc @9 :Rdtsc;
    cpuid @10 :Cpuid;
    stdio @11 :Stdio;
  }
}

# The run token moved to `tid`; `reason` says why the previous holder gave it up.
struct Schedule {
  previousTid @0 :Int32;
  reason @1 :Reason;
  enum Reason {
    yield @0;       # a scheduling point (futex, sched_yield, ...)
    blocked @1;     # the previous holder would block
    exited @2;
    preempted @3;   # timeslice (PMU) or chaos change point
    started @4;     # first thread of the run
  }
}

struct Syscall {
  number @0 :Int32;
  args @1 :List(UInt64);
  result @2 :Int64;              # raw kernel return: negative errno on failure
  emulated @3 :Bool;             # hermit produced the result; the kernel did not run it
  memoryWrites @4 :List(MemoryWrite); # what the syscall wrote into guest memory (recorded inputs)
  buffered @5 :Bool;             # made in the guest's syscall buffer, without a stop
  paths @6 :List(Text);          # its path arguments, in order (buffered calls only)
}

struct MemoryWrite {
  address @0 :UInt64;
  data @1 :Data;
}

struct Signal {
  number @0 :Int32;
  code @1 :Int32;                # si_code
  senderPid @2 :Int32;
  fatal @3 :Bool;
  outside @4 :Bool;              # sent from outside the guest: replay sends it again at this event
  senderUid @5 :Int32;           # si_uid, kept for signals from outside
}

struct ThreadStart {
  parentTid @0 :Int32;
  newProcess @1 :Bool;           # fork/vfork rather than a thread in the same process
}

struct ThreadExit {
  status @0 :Int32;              # exit code, or 128+N for a signal
  processExit @1 :Bool;          # the last thread of its process
}

struct Exec {
  path @0 :Text;
  argv @1 :List(Text);
  sha256 @2 :Text;
}

struct Rdtsc {
  value @0 :UInt64;
  withProcessorId @1 :Bool;      # rdtscp
}

struct Cpuid {
  leaf @0 :UInt32;
  subleaf @1 :UInt32;
  eax @2 :UInt32;
  ebx @3 :UInt32;
  ecx @4 :UInt32;
  edx @5 :UInt32;
}

# Bytes the guest wrote to its stdout (fd 1) or stderr (fd 2), kept so replay can be compared.
struct Stdio {
  fd @0 :Int32;
  data @1 :Data;
}
