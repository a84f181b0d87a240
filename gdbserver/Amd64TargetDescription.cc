#include "Amd64TargetDescription.h"

#include "Amd64Registers.h"

#include <fmt/format.h>

#include <string_view>

namespace hermit::gdbserver::amd64 {

namespace {

constexpr std::string_view kHeader = R"(<?xml version="1.0"?>
<!DOCTYPE target SYSTEM "gdb-target.dtd">
<target version="1.0">
<architecture>i386:x86-64</architecture>
<osabi>GNU/Linux</osabi>
)";

constexpr std::string_view kCoreTypes = R"(<flags id="i386_eflags" size="4">
<field name="CF" start="0" end="0"/><field name="" start="1" end="1"/><field name="PF" start="2" end="2"/>
<field name="AF" start="4" end="4"/><field name="ZF" start="6" end="6"/><field name="SF" start="7" end="7"/>
<field name="TF" start="8" end="8"/><field name="IF" start="9" end="9"/><field name="DF" start="10" end="10"/>
<field name="OF" start="11" end="11"/><field name="NT" start="14" end="14"/><field name="RF" start="16" end="16"/>
<field name="VM" start="17" end="17"/><field name="AC" start="18" end="18"/><field name="VIF" start="19" end="19"/>
<field name="VIP" start="20" end="20"/><field name="ID" start="21" end="21"/>
</flags>
)";

constexpr std::string_view kSseTypes = R"(<vector id="v8bf16" type="bfloat16" count="8"/>
<vector id="v4f" type="ieee_single" count="4"/><vector id="v2d" type="ieee_double" count="2"/>
<vector id="v16i8" type="int8" count="16"/><vector id="v8i16" type="int16" count="8"/>
<vector id="v4i32" type="int32" count="4"/><vector id="v2i64" type="int64" count="2"/>
<union id="vec128"><field name="v8_bfloat16" type="v8bf16"/><field name="v4_float" type="v4f"/>
<field name="v2_double" type="v2d"/><field name="v16_int8" type="v16i8"/><field name="v8_int16" type="v8i16"/>
<field name="v4_int32" type="v4i32"/><field name="v2_int64" type="v2i64"/><field name="uint128" type="uint128"/>
</union>
<flags id="i386_mxcsr" size="4">
<field name="IE" start="0" end="0"/><field name="DE" start="1" end="1"/><field name="ZE" start="2" end="2"/>
<field name="OE" start="3" end="3"/><field name="UE" start="4" end="4"/><field name="PE" start="5" end="5"/>
<field name="DAZ" start="6" end="6"/><field name="IM" start="7" end="7"/><field name="DM" start="8" end="8"/>
<field name="ZM" start="9" end="9"/><field name="OM" start="10" end="10"/><field name="UM" start="11" end="11"/>
<field name="PM" start="12" end="12"/><field name="FZ" start="15" end="15"/>
</flags>
)";

// The gdb type and register group of each register; gdb uses the type to print values.
std::string_view type_of(int regno) {
    switch (regno) {
    case kRbp:
    case kRsp:
        return "data_ptr";
    case kRip:
        return "code_ptr";
    case kEflags:
        return "i386_eflags";
    case kMxcsr:
        return "i386_mxcsr";
    default:
        break;
    }
    if (regno >= kSt0 && regno <= kSt7) {
        return "i387_ext";
    }
    if (regno >= kXmm0 && regno <= kXmm15) {
        return "vec128";
    }
    if (regno >= kCs && regno <= kGs) {
        return "int32";
    }
    if (regno >= kFctrl && regno <= kFop) {
        return "int";
    }
    return "int64";
}

std::string_view group_of(int regno) {
    if (regno >= kFctrl && regno <= kFop) {
        return R"( group="float")";
    }
    if (regno == kMxcsr) {
        return R"( group="vector")";
    }
    return "";
}

void append_registers(std::string& xml, int first, int last) {
    for (int regno = first; regno <= last; ++regno) {
        const RegisterInfo& info = registers()[static_cast<size_t>(regno)];
        xml += fmt::format(R"(<reg name="{}" bitsize="{}" type="{}" regnum="{}"{}/>)", info.name,
                           info.size * 8, type_of(regno), regno, group_of(regno));
        xml += '\n';
    }
}

std::string build() {
    std::string xml(kHeader);
    xml += "<feature name=\"org.gnu.gdb.i386.core\">\n";
    xml += kCoreTypes;
    append_registers(xml, kRax, kFop);
    xml += "</feature>\n<feature name=\"org.gnu.gdb.i386.sse\">\n";
    xml += kSseTypes;
    append_registers(xml, kXmm0, kMxcsr);
    xml += "</feature>\n<feature name=\"org.gnu.gdb.i386.linux\">\n";
    append_registers(xml, kOrigRax, kOrigRax);
    xml += "</feature>\n<feature name=\"org.gnu.gdb.i386.segments\">\n";
    append_registers(xml, kFsBase, kGsBase);
    xml += "</feature>\n</target>\n";
    return xml;
}

} // namespace

const std::string& target_description_xml() {
    static const std::string xml = build();
    return xml;
}

} // namespace hermit::gdbserver::amd64
