#include "ReceivedDescriptors.h"

#include <sys/socket.h>

#include <algorithm>

namespace hermit::tracer {

std::vector<int> received_descriptors(GuestMemory& memory, uint64_t message_address) {
    std::vector<int> fds;
    auto message = memory.read_value<msghdr>(message_address);
    if (!message || message->msg_control == nullptr) {
        return fds;
    }
    // After recvmsg, msg_controllen is the length of the control messages the kernel stored.
    auto control = memory.read_bytes(reinterpret_cast<uint64_t>(message->msg_control),
                                     std::min<size_t>(message->msg_controllen, 64 * 1024));
    if (!control) {
        return fds;
    }
    size_t offset = 0;
    while (offset + sizeof(cmsghdr) <= control->size()) {
        cmsghdr header{};
        std::copy_n(control->data() + offset, sizeof header, reinterpret_cast<uint8_t*>(&header));
        if (header.cmsg_len < sizeof header || offset + header.cmsg_len > control->size()) {
            break;
        }
        if (header.cmsg_level == SOL_SOCKET && header.cmsg_type == SCM_RIGHTS) {
            const size_t count = (header.cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t index = 0; index < count; index++) {
                int fd = 0;
                std::copy_n(control->data() + offset + CMSG_LEN(0) + index * sizeof(int), sizeof fd,
                            reinterpret_cast<uint8_t*>(&fd));
                fds.push_back(fd);
            }
        }
        offset += CMSG_ALIGN(header.cmsg_len);
    }
    return fds;
}

} // namespace hermit::tracer
