#pragma once
// ServerHarness: runs a GdbServer for one connection on a background thread over real loopback TCP,
// and RawClient: plays gdb's side with hand-written packets (framed and checksummed by encode_packet).

#include "InMemoryTarget.h"
#include "gdbserver/Connection.h"
#include "gdbserver/GdbServer.h"
#include "gdbserver/PacketCodec.h"
#include "gdbserver/Transport.h"

#include <gtest/gtest.h>

#include <deque>
#include <optional>
#include <stdexcept>
#include <thread>

namespace hermit::gdbserver::testing {

class ServerHarness {
public:
    explicit ServerHarness(InMemoryTarget& target)
        : listener_(Listener::listen_loopback(0)), thread_([this, &target] {
              Connection connection(*listener_.accept());
              GdbServer server(target, connection);
              outcome_ = server.serve();
          }) {}
    ~ServerHarness() { join(); }

    uint16_t port() const { return listener_.port(); }
    // Waits for the session to end and returns how it ended.
    std::optional<GdbServer::Outcome> join() {
        if (thread_.joinable()) {
            thread_.join();
        }
        return outcome_;
    }

private:
    Listener listener_;
    std::optional<GdbServer::Outcome> outcome_;
    std::thread thread_;
};

class RawClient {
public:
    explicit RawClient(uint16_t port) : socket_(Socket::connect_loopback(port)) {}

    void send_raw(std::string_view bytes) { socket_.write_all(bytes); }

    // Sends a request and returns the reply payload, acknowledging it as gdb does in ack mode.
    std::string request(std::string_view payload) {
        send_raw(encode_packet(payload));
        return read_reply();
    }

    // The next packet from the server (acks are counted, not returned).
    std::string read_reply() {
        PacketEvent event =
            next_event([](const PacketEvent& e) { return e.kind == PacketEvent::Kind::Packet; });
        if (acks_) {
            send_raw("+");
        }
        return event.payload;
    }

    // The next ack or nack from the server.
    PacketEvent::Kind read_ack() {
        return next_event([](const PacketEvent& e) {
                   return e.kind == PacketEvent::Kind::Ack || e.kind == PacketEvent::Kind::Nack;
               })
            .kind;
    }

    void disable_acks() { acks_ = false; }
    // How many '+' or '-' the server has sent so far (read ones only).
    size_t acks_seen() const { return acks_seen_; }
    bool closed_by_server() { return socket_.wait_readable(10000) && socket_.read_some().empty(); }

private:
    template <typename Predicate> PacketEvent next_event(Predicate wanted) {
        for (;;) {
            while (!events_.empty()) {
                PacketEvent event = std::move(events_.front());
                events_.pop_front();
                if (wanted(event)) {
                    return event;
                }
            }
            // A generous bound so a broken server fails the test instead of hanging it.
            if (!socket_.wait_readable(20000)) {
                throw std::runtime_error("no reply from the server");
            }
            std::string bytes = socket_.read_some();
            if (bytes.empty()) {
                throw std::runtime_error("server closed the connection");
            }
            for (auto& event : decoder_.feed(bytes)) {
                if (event.kind == PacketEvent::Kind::Ack || event.kind == PacketEvent::Kind::Nack) {
                    ++acks_seen_;
                }
                events_.push_back(std::move(event));
            }
        }
    }

    Socket socket_;
    PacketDecoder decoder_{1 << 20};
    std::deque<PacketEvent> events_;
    bool acks_ = true;
    size_t acks_seen_ = 0;
};

} // namespace hermit::gdbserver::testing
