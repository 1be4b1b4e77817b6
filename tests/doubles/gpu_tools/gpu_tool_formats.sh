#!/bin/sh
# TEST DOUBLE's built-in samples (gpu_tool_double.sh): the shape of each tool's output
# for the sampler's commands (tool_commands.cc), nvidia-smi's CSV as its
# --format=csv,nounits prints it; amd-smi's and rocm-smi's JSON as their metric and
# --json outputs nest it (for the exact formats, AORTA_GPU_DOUBLE_DIR names fixtures).
#   gpu_tool_formats.sh TOOL tick|edge|bus N GPUS THROTTLE_FROM ECC(0|1) X8(0|1)
# (rocm-smi's --json has no ECC counts: its ecc scenario changes nothing)
tool=$1 kind=$2 n=$3 gpus=$4 throttle_from=$5 ecc=$6 x8=$7
sick=3  # the GPU every scenario picks
throttled() { [ "$1" -eq "$sick" ] && [ "$throttle_from" -gt 0 ] && [ "$n" -ge "$throttle_from" ]; }
uncorrectable() { if [ "$1" -eq "$sick" ] && [ "$ecc" = 1 ] && [ "$n" -ge 2 ]; then echo 2; else echo 0; fi; }
width() { if [ "$1" -eq "$sick" ] && [ "$x8" = 1 ]; then echo 8; else echo 16; fi; }
now=$(date '+%Y/%m/%d %H:%M:%S.000')

nvidia() {
  if [ "$kind" = tick ]; then
    echo "index, timestamp, temperature.gpu, temperature.memory, power.draw [W], clocks.current.sm [MHz], clocks.current.memory [MHz], clocks.max.sm [MHz], utilization.gpu [%], utilization.memory [%], clocks_event_reasons.active"
    g=0; while [ "$g" -lt "$gpus" ]; do
      if throttled "$g"; then echo "$g, $now, 97, 88, 540.10, 1410, 3201, 1980, 100, 61, 0x0000000000000040"
      else echo "$g, $now, 61, 55, 652.30, 1980, 3201, 1980, 100, 63, 0x0000000000000000"; fi
      g=$((g + 1)); done
  else
    echo "index, ecc.errors.corrected.volatile.total, ecc.errors.uncorrected.volatile.total, pcie.link.gen.current, pcie.link.gen.max, pcie.link.width.current, pcie.link.width.max"
    g=0; while [ "$g" -lt "$gpus" ]; do
      echo "$g, 0, $(uncorrectable "$g"), 5, 5, $(width "$g"), 16"; g=$((g + 1)); done
  fi
}

amd() {
  echo "["
  g=0; while [ "$g" -lt "$gpus" ]; do
    [ "$g" -gt 0 ] && echo "    },"
    if [ "$kind" = bus ]; then
      cat <<JSON
    {
        "gpu": $g,
        "bus": {"bdf": "0000:$(printf %02x $((g + 16))):00.0", "max_pcie_width": 16, "max_pcie_speed": {"value": 32, "unit": "GT/s"}, "pcie_interface_version": "Gen 5", "slot_type": "OAM"}
JSON
    elif [ "$kind" = tick ]; then
      if throttled "$g"; then t=97 c=1400 s=ACTIVE p=540; else t=62 c=2100 s="NOT ACTIVE" p=652; fi
      cat <<JSON
    {
        "gpu": $g,
        "usage": {"gfx_activity": {"value": 100, "unit": "%"}, "umc_activity": {"value": 61, "unit": "%"}, "mm_activity": "N/A"},
        "power": {"socket_power": {"value": $p, "unit": "W"}, "gfx_voltage": "N/A", "soc_voltage": "N/A", "mem_voltage": "N/A", "throttle_status": "N/A", "power_management": "ENABLED"},
        "clock": {"gfx_0": {"clk": {"value": $c, "unit": "MHz"}, "min_clk": {"value": 500, "unit": "MHz"}, "max_clk": {"value": 2100, "unit": "MHz"}, "clk_locked": "DISABLED", "deep_sleep": "DISABLED"},
                  "mem_0": {"clk": {"value": 1300, "unit": "MHz"}, "min_clk": {"value": 900, "unit": "MHz"}, "max_clk": {"value": 1300, "unit": "MHz"}, "clk_locked": "N/A", "deep_sleep": "DISABLED"}},
        "temperature": {"edge": "N/A", "hotspot": {"value": $t, "unit": "C"}, "mem": {"value": 55, "unit": "C"}},
        "throttle": {"socket_thermal_violation_status": "$s", "ppt_violation_status": "NOT ACTIVE", "prochot_violation_status": "NOT ACTIVE", "vr_thermal_violation_status": "NOT ACTIVE", "hbm_thermal_violation_status": "NOT ACTIVE"}
JSON
    else
      cat <<JSON
    {
        "gpu": $g,
        "ecc": {"total_correctable_count": 0, "total_uncorrectable_count": $(uncorrectable "$g"), "total_deferred_count": 0, "cache_correctable_count": 0, "cache_uncorrectable_count": 0},
        "ecc_blocks": {"UMC": {"correctable_count": 0, "uncorrectable_count": $(uncorrectable "$g"), "deferred_count": 0}, "GFX": {"correctable_count": 0, "uncorrectable_count": 0, "deferred_count": 0}},
        "pcie": {"width": $(width "$g"), "speed": {"value": 32, "unit": "GT/s"}, "bandwidth": "N/A", "replay_count": 0, "l0_to_recovery_count": 0, "replay_roll_over_count": 0, "nak_sent_count": 0, "nak_received_count": 0}
JSON
    fi
    g=$((g + 1)); done
  echo "    }"
  echo "]"
}

rocm() {
  printf '{'
  g=0; while [ "$g" -lt "$gpus" ]; do
    [ "$g" -gt 0 ] && printf ', '
    if [ "$kind" = tick ]; then
      if throttled "$g"; then t=97.0 c=1400; else t=62.0 c=2100; fi
      printf '"card%s": {"Temperature (Sensor edge) (C)": "N/A", "Temperature (Sensor junction) (C)": "%s", "Temperature (Sensor memory) (C)": "55.0", "Current Socket Graphics Package Power (W)": "652.0", "sclk clock speed:": "(%sMhz)", "mclk clock speed:": "(1300Mhz)", "GPU use (%%)": "100", "GPU Memory Allocated (VRAM%%)": "61"}' "$g" "$t" "$c"
    else
      printf '"card%s": {"PCIe Replay Count": "0", "sclk clock speed:": "(2100Mhz)", "pcie clock level": "1 (32.0GT/s x%s)", "0": "2.5GT/s x16", "1": "32.0GT/s x16 *"}' "$g" "$(width "$g")"
    fi
    g=$((g + 1)); done
  printf '}\n'
}

case "$tool" in
  nvidia-smi) nvidia ;;
  amd-smi) amd ;;
  rocm-smi) rocm ;;
  *) echo "gpu_tool_formats.sh: unknown tool $tool" >&2; exit 2 ;;
esac
