// Patterns from AMD node-scraper, MIT, commit c3934162a617d0a121bd37cfaeb718af76632f27
// (nodescraper/plugins/inband/dmesg/dmesg_analyzer.py ERROR_REGEX and mce_utils.py's
// MCn_STATUS row patterns), Copyright (c) 2025 Advanced Micro Devices, Inc.: the regular
// expressions, messages, categories and priorities, transcribed as data.
#include "job/kernel_patterns.h"

namespace aorta::job {
namespace {

// One `amdgpu 0000:c1:00.0: amdgpu: ...` line following a page fault, up to ten times.
#define AMDGPU_FAULT_LINE R"re((?:\n[^\n]*(amdgpu \w{4}:\w{2}:\w{2}\.\w:\s+amdgpu:[^\n]*))?)re"
#define ACA_LINE(field) R"re((?:\n[^\n]*){0,5}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*)re" field R"re(=0x[0-9a-fA-F]+))re"
#define ISO_TIME R"re((?:\d{4}-\d+-\d+T\d+:\d+:\d+,\d+[+-]\d+:\d+)?)re"

constexpr bool W = true;  // node-scraper's WARNING priority
constexpr bool I = true;  // ignore case
constexpr bool M = true;  // multi-line

// Software, OS, firmware and I/O: the table's first half, in its order.
std::vector<KernelPattern> driver_and_os_patterns() {
  return {
      {R"re((?:oom_kill_process.*)|(?:Out of memory.*))re", "Out of memory error", "SW_DRIVER"},
      {R"re(IO_PAGE_FAULT)re", "I/O Page Fault", "SW_DRIVER"},
      {R"re(\bkernel panic\b.*)re", "Kernel Panic", "SW_DRIVER", false, I},
      {R"re(sq_intr)re", "SQ Interrupt", "SW_DRIVER"},
      {R"re(sram_ecc.*)re", "SRAM ECC", "SW_DRIVER"},
      {R"re(\[amdgpu\]\] \*ERROR\* hw_init of IP block.*)re", "Failed to load driver. IP hardware init error.", "SW_DRIVER"},
      {R"re(\[amdgpu\]\] \*ERROR\* sw_init of IP block.*)re", "Failed to load driver. IP software init error.", "SW_DRIVER"},
      {R"re(sched: RT throttling activated.*)re", "Real Time throttling activated", "SW_DRIVER"},
      {R"re(rcu_preempt detected stalls.*)re", "RCU preempt detected stalls", "SW_DRIVER"},
      {R"re(rcu_preempt self-detected stall.*)re", "RCU preempt self-detected stall", "SW_DRIVER"},
      {R"re(qcm fence wait loop timeout.*)re", "QCM fence timeout", "SW_DRIVER"},
      {R"re((?:[\w-]+(?:\[[0-9.]+\])?\s+)?general protection fault[^\n]*)re", "General protection fault", "SW_DRIVER"},
      {R"re((?:segfault.*in .*\[)|(?:[Ss]egmentation [Ff]ault.*)|(?:[Ss]egfault.*))re", "Segmentation fault", "SW_DRIVER"},
      {R"re(amdgpu: Failed to disallow cf state.*)re", "Failed to disallow cf state", "SW_DRIVER"},
      {R"re(\*ERROR\* Failed to terminate tmr.*)re", "Failed to terminate tmr", "SW_DRIVER"},
      {R"re(\*ERROR\* suspend of IP block <\w+> failed.*)re", "Suspend of IP block failed", "SW_DRIVER"},
      {R"re((amdgpu \w{4}:\w{2}:\w{2}\.\w:\s+amdgpu:\s+\[\S+\]\s*(?:retry|no-retry)? page fault[^\n]*))re" AMDGPU_FAULT_LINE
           AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE
               AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE AMDGPU_FAULT_LINE,
       "amdgpu Page Fault", "SW_DRIVER", false, false, M},
      {R"re(page fault for address.*)re", "Page Fault", "OS"},
      {R"re((?:amdgpu)(.*Fatal error during GPU init)|(Fatal error during GPU init))re", "Fatal error during GPU init",
       "SW_DRIVER"},
      {R"re((pcieport [\w:.]+: AER: aer_status:[^\n]*(?:\n[^\n]*){0,32}?pcieport [\w:.]+: AER: aer_layer=[^\n]*))re",
       "PCIe AER Error Status", "SW_DRIVER", false, false, M},
      {R"re((.*aer_cor_status: 0x[0-9a-fA-F]+, aer_cor_mask: 0x[0-9a-fA-F]+.*))re", "PCIe AER Correctable Error Status",
       "SW_DRIVER"},
      {R"re((.*aer_uncor_status: 0x[0-9a-fA-F]+, aer_uncor_mask: 0x[0-9a-fA-F]+.*))re",
       "PCIe AER Uncorrectable Error Status", "SW_DRIVER"},
      {R"re((.*aer_uncor_severity: 0x[0-9a-fA-F]+.*)(\n.*TLP Header: (?:0x)?[0-9a-fA-F]+(?: (?:0x)?[0-9a-fA-F]+){3}.*))re",
       "PCIe AER Uncorrectable Error Severity with TLP Header", "SW_DRIVER", false, false, M},
  };
}

// From the journal on: the table's second half, in its order.
std::vector<KernelPattern> io_and_ras_patterns() {
  return {
      {R"re(Failed to read journal file.*)re", "Failed to read journal file", "OS", W},
      {R"re(journal corrupted or uncleanly shut down.*)re", "Journal file corrupted or uncleanly shut down", "OS", W},
      {R"re(ACPI BIOS Error)re", "ACPI BIOS Error", "BIOS"},
      {R"re(ACPI Error)re", "ACPI Error", "BIOS", W},
      {R"re(EXT4-fs error \(device .*\):)re", "Filesystem corrupted!", "OS"},
      {R"re((Buffer I\/O error on dev)(?:ice)? (\w+))re", "Error in buffered IO, check filesystem integrity", "IO"},
      {R"re(pcieport (\w+:\w+:\w+\.\w+):\s+(\w+):\s+(Slot\(\d+\)):\s+(Card not present))re", "PCIe card no longer present",
       "IO"},
      {R"re(pcieport (\w+:\w+:\w+\.\w+):\s+(\w+):\s+(Slot\(\d+\)):\s+(Link Down))re", "PCIe Link Down", "IO"},
      {R"re(pcieport (\w+:\w+:\w+\.\w+):\s+(\w+):\s+(current common clock configuration is inconsistent, reconfiguring))re",
       "Mismatched clock configuration between PCIe device and host", "IO"},
      {ISO_TIME R"re((.* correctable hardware errors detected in total in \w+ block.*))re", "RAS Correctable Error", "RAS", W},
      {ISO_TIME R"re((.* uncorrectable hardware errors detected in \w+ block.*))re", "RAS Uncorrectable Error", "RAS"},
      {ISO_TIME R"re((.* deferred hardware errors detected in \w+ block.*))re", "RAS Deferred Error", "RAS"},
      {R"re(((?:\[Hardware Error\]:\s+)?event severity: corrected.*)\n.*(\[Hardware Error\]:\s+Error \d+, type: corrected.*)\n.*(\[Hardware Error\]:\s+section_type: PCIe error.*))re",
       "RAS Corrected PCIe Error", "RAS", W, false, M},
      {ISO_TIME R"re((.*GPU reset begin.*))re", "GPU Reset", "RAS"},
      {ISO_TIME R"re((.*GPU reset(?:\(\d+\))? failed.*))re", "GPU reset failed", "RAS"},
      {R"re((Accelerator Check Architecture[^\n]*)(?:\n[^\n]*){0,10}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*entry\[\d+\]\.STATUS=0x[0-9a-fA-F]+))re"
       R"re((?:\n[^\n]*){0,5}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*entry\[\d+\]\.ADDR=0x[0-9a-fA-F]+))re"
       R"re((?:\n[^\n]*){0,5}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*entry\[\d+\]\.MISC0=0x[0-9a-fA-F]+))re"
       R"re((?:\n[^\n]*){0,5}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*entry\[\d+\]\.IPID=0x[0-9a-fA-F]+))re"
       R"re((?:\n[^\n]*){0,5}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*entry\[\d+\]\.SYND=0x[0-9a-fA-F]+-?))re",
       "ACA Error", "RAS", false, false, M},
      {R"re((Accelerator Check Architecture[^\n]*)(?:\n[^\n]*){0,10}?(amdgpu[ 0-9a-fA-F:.]+:? [^\n]*CONTROL=0x[0-9a-fA-F]+))re"
       ACA_LINE("STATUS") ACA_LINE("ADDR") ACA_LINE("MISC") ACA_LINE("CONFIG") ACA_LINE("IPID") ACA_LINE("SYND")
           ACA_LINE("DESTAT") ACA_LINE("DEADDR") ACA_LINE("CONTROL_MASK"),
       "ACA Error", "RAS", false, false, M},
      {R"re(\[Hardware Error\]:[^\n]*MC\d+_STATUS\[[^\]]*\|CE\|[^\]]*\][^\n]*)re", "MCE Corrected Error", "RAS", W, I},
      {R"re(\[Hardware Error\]:[^\n]*MC\d+_STATUS\[[^\]]*\|UC\|[^\]]*\][^\n]*)re", "MCE Uncorrected Error", "RAS", false, I},
      {ISO_TIME R"re( (.*Mode2 reset failed.*))re", "Mode 2 Reset Failed", "RAS"},
      {ISO_TIME R"re((.*\[Hardware Error\]: Corrected error.*))re", "RAS Corrected Error", "RAS", W},
      {R"re(x86/cpu: SGX disabled by BIOS)re", "SGX Error", "BIOS", W},
      {R"re(Failed to load MMP firmware qat_4xxx_mmp.bin)re", "MMP Error", "BIOS", W},
      {R"re(amdgpu \w{4}:\w{2}:\w{2}.\w: amdgpu: WARN: GPU is throttled.*)re", "GPU Throttled", "SW_DRIVER", W},
      {R"re(amdgpu[ 0-9a-fA-F:.]+:(?:\s*amdgpu:)?\s+(?:{\d+})?poison is consumed by client \d+, kick off gpu reset flow)re",
       "RAS Poison Consumed", "RAS"},
      {R"re(amdgpu[ 0-9a-fA-F:.]+:(?:\s*amdgpu:)?\s+(?:{\d+})?Poison is created)re", "RAS Poison created", "RAS"},
      {R"re((amdgpu: Saved bad pages (\d+) reaches threshold value 128))re", "Bad page threshold exceeded", "RAS"},
      {R"re(Hardware error from APEI Generic Hardware Error Source:.*(?:\n.*){0,14})re", "RAS Hardware Error", "RAS", false,
       false, M},
      {R"re(Error Address.*(?:\s.*))re", "Error Address", "RAS", false, false, M},
      {R"re(EDR: EDR event received)re", "RAS EDR Event", "RAS"},
      {R"re(DPC: .*)re", "DPC Event", "RAS"},
      {R"re((?:\[[^\]]+\]\s*)?LNetError:.*ko2iblnd:\s*No matching interfaces)re", "LNet: ko2iblnd has no matching interfaces",
       "IO", W, I},
      {R"re((?:\[[^\]]+\]\s*)?LNetError:\s*.*Error\s*-?\d+\s+starting up LNI\s+\w+)re", "LNet: Error starting up LNI", "IO", W,
       I},
      {R"re(LustreError:.*ptlrpc_init_portals\(\).*network initiali[sz]ation failed)re",
       "Lustre: network initialisation failed", "IO", W, I},
  };
}

}  // namespace

const std::vector<KernelPattern>& node_scraper_patterns() {
  static const std::vector<KernelPattern> kPatterns = [] {
    auto all = driver_and_os_patterns();
    for (auto& p : io_and_ras_patterns()) all.push_back(p);
    return all;
  }();
  return kPatterns;
}

}  // namespace aorta::job
