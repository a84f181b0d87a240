#pragma once
// Translations between host (Linux) numbers and the target-independent numbers the remote protocol
// uses: gdb's signal numbering in stop replies and vCont/C/S, and the File-I/O open flags and errno
// values of vFile packets.

namespace hermit::gdbserver {

int gdb_signal_from_host(int host_signal);
// 0 when the gdb signal has no host equivalent.
int host_signal_from_gdb(int gdb_signal);

int host_open_flags_from_gdb(int gdb_flags);
int gdb_errno_from_host(int host_errno);

} // namespace hermit::gdbserver
