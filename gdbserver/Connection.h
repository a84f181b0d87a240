#pragma once
// Connection: one gdb session's packet stream over a Socket. It owns acknowledgement (sending '+'/'-',
// resending the last reply on '-', no-ack mode) so that the server above it deals only in request and
// reply payloads. Invariant: at most one reply is outstanding, the last one sent, kept for resending.

#include "PacketCodec.h"
#include "Transport.h"

#include <deque>
#include <optional>
#include <string>
#include <string_view>

namespace hermit::gdbserver {

class Connection {
public:
    explicit Connection(Socket socket);

    // Blocks until the next request packet; nullopt when gdb closed the connection. Interrupt bytes that
    // arrive while the target is stopped mean nothing and are dropped.
    std::optional<std::string> read_request();
    void send_reply(std::string_view payload);
    // Sends text for gdb's console as an 'O' packet (used for monitor command output).
    void send_console_output(std::string_view text);
    // Non-blocking and never throws: whether gdb sent the interrupt byte (0x03) since the last call, or
    // went away. Packets that arrive meanwhile are kept for read_request.
    bool interrupt_requested();
    // Stops acknowledging packets; called after replying to QStartNoAckMode.
    void disable_acks() { acks_ = false; }

private:
    void handle(PacketEvent event);
    bool fill_from_socket();

    Socket socket_;
    PacketDecoder decoder_;
    bool acks_ = true;
    bool interrupted_ = false;
    bool closed_ = false;
    std::deque<std::string> requests_;
    std::string last_reply_frame_;
};

} // namespace hermit::gdbserver
