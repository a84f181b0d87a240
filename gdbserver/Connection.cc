#include "Connection.h"

#include "Hex.h"

#include <spdlog/spdlog.h>

namespace hermit::gdbserver {

Connection::Connection(Socket socket) : socket_(std::move(socket)) {}

void Connection::handle(PacketEvent event) {
    switch (event.kind) {
    case PacketEvent::Kind::Packet:
        if (acks_) {
            socket_.write_all("+");
        }
        spdlog::trace("gdb -> {}", event.payload);
        requests_.push_back(std::move(event.payload));
        return;
    case PacketEvent::Kind::Interrupt:
        interrupted_ = true;
        return;
    case PacketEvent::Kind::Ack:
        return;
    case PacketEvent::Kind::Nack:
        if (acks_ && !last_reply_frame_.empty()) {
            socket_.write_all(last_reply_frame_);
        }
        return;
    case PacketEvent::Kind::Rejected:
        spdlog::debug("gdbserver: dropped a packet from gdb: {}", event.payload);
        if (acks_) {
            socket_.write_all("-");
        }
        return;
    }
}

bool Connection::fill_from_socket() {
    std::string bytes = socket_.read_some();
    if (bytes.empty()) {
        closed_ = true;
        return false;
    }
    for (PacketEvent& event : decoder_.feed(bytes)) {
        handle(std::move(event));
    }
    return true;
}

std::optional<std::string> Connection::read_request() {
    while (requests_.empty()) {
        if (closed_ || !fill_from_socket()) {
            return std::nullopt;
        }
    }
    interrupted_ = false;
    std::string request = std::move(requests_.front());
    requests_.pop_front();
    return request;
}

void Connection::send_reply(std::string_view payload) {
    spdlog::trace("gdb <- {}", payload);
    last_reply_frame_ = encode_packet(payload);
    socket_.write_all(last_reply_frame_);
}

void Connection::send_console_output(std::string_view text) {
    // Console output is not a reply: gdb does not ack-resend it on its own, so it is not kept.
    socket_.write_all(encode_packet("O" + hex_encode(text)));
}

bool Connection::interrupt_requested() {
    // This runs inside the target's resume loop, so a broken connection must not unwind through the
    // target: it reads as a closed one, and the next read or write reports it to the server.
    try {
        while (!closed_ && socket_.wait_readable(0)) {
            fill_from_socket();
        }
    } catch (const TransportError& error) {
        spdlog::debug("gdbserver: connection failed while the target ran: {}", error.reason());
        closed_ = true;
    }
    // A vanished gdb cannot ask for the stop it would be waiting for; stopping is the only useful answer.
    bool requested = interrupted_ || closed_;
    interrupted_ = false;
    return requested;
}

} // namespace hermit::gdbserver
