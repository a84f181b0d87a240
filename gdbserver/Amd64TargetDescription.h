#pragma once
// The target.xml gdb reads (qXfer:features:read) to learn the register file of an x86-64 Linux thread.
// Its register numbering and sizes are those of Amd64Registers.h, which the XML is generated from, so the
// description and the `g` layout cannot drift apart.

#include <string>

namespace hermit::gdbserver::amd64 {

const std::string& target_description_xml();

} // namespace hermit::gdbserver::amd64
