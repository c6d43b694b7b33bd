package dev.spool.chaos.net;

import dev.spool.chaos.nemesis.NemesisFamily;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * What fault injection this machine allows. Network namespaces need CAP_SYS_ADMIN (to create a
 * namespace) and CAP_NET_ADMIN (links, addresses, routes), plus the {@code ip} tool; root has both.
 * Without them the harness still runs the process, disk, restart and proxy nemeses, and {@link
 * #report()} says loudly what it skipped.
 *
 * @param capEffective the effective capability mask from {@code /proc/self/status}
 * @param ipTool whether {@code ip -V} runs
 * @param problems why network faults are unavailable, empty if they are available
 */
public record Capabilities(long capEffective, boolean ipTool, List<String> problems) {
  static final int CAP_NET_ADMIN = 12;
  static final int CAP_SYS_ADMIN = 21;

  public Capabilities {
    problems = List.copyOf(problems);
  }

  public static Capabilities detect(CommandRunner runner) {
    String status;
    try {
      status = Files.readString(Path.of("/proc/self/status"));
    } catch (IOException e) {
      status = "";
    }
    return of(status, runner.tryRun("ip", "-V").ok());
  }

  /** Pure: decides from the text of {@code /proc/self/status} and whether {@code ip} runs. */
  static Capabilities of(String procStatus, boolean ipTool) {
    long capEff = 0;
    for (String line : procStatus.split("\n")) {
      if (line.startsWith("CapEff:")) {
        capEff = Long.parseUnsignedLong(line.substring("CapEff:".length()).strip(), 16);
      }
    }
    List<String> problems = new ArrayList<>();
    if ((capEff & (1L << CAP_SYS_ADMIN)) == 0) {
      problems.add("no CAP_SYS_ADMIN (not root): cannot create network namespaces");
    }
    if ((capEff & (1L << CAP_NET_ADMIN)) == 0) {
      problems.add("no CAP_NET_ADMIN (not root): cannot add links, addresses or routes");
    }
    if (!ipTool) {
      problems.add("the 'ip' tool (iproute2) is not installed");
    }
    return new Capabilities(capEff, ipTool, problems);
  }

  public boolean canPartition() {
    return problems.isEmpty();
  }

  /** The nemesis families this machine can run. */
  public Set<NemesisFamily> availableFamilies() {
    Set<NemesisFamily> all = EnumSet.allOf(NemesisFamily.class);
    if (!canPartition()) {
      all.removeIf(NemesisFamily::needsRoot);
    }
    return all;
  }

  /** A loud one-paragraph statement for the run log and report. */
  public String report() {
    if (canPartition()) {
      return "network faults available (namespaces, veth, bridge, blackhole routes)";
    }
    return "NETWORK FAULTS UNAVAILABLE, partition nemeses are SKIPPED: "
        + String.join("; ", problems)
        + ". Run as root for IP-level partitions. Process, disk, restart and proxy faults still run.";
  }
}
