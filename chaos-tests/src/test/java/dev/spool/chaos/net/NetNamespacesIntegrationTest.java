package dev.spool.chaos.net;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.spool.chaos.nemesis.Plane;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real namespaces, real routes: proves that a blackhole cuts exactly one direction, that the two
 * planes are separate, that heal restores traffic and that teardown leaves nothing behind. Needs
 * root; skipped with the reason otherwise.
 */
@Tag("integration")
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class NetNamespacesIntegrationTest {
  private static final int UDP_PORT = 7701;
  private static final int TCP_PORT = 7702;
  private static final Duration NOT_DELIVERED_WITHIN = Duration.ofMillis(700);

  private final CommandRunner cmd = new CommandRunner();
  private NetNamespaces net;
  private final List<Process> probes = new ArrayList<>();
  private final List<Queue<String>> outputs = new ArrayList<>();

  @BeforeEach
  void setUp() throws IOException {
    Capabilities caps = Capabilities.detect(cmd);
    assumeTrue(caps.canPartition(), "skipped, needs root for network namespaces: " + caps.report());
    net = NetNamespaces.create(cmd, List.of(1, 2));
    for (int node : List.of(1, 2)) {
      startProbe(node);
    }
    for (Queue<String> out : outputs) {
      await().atMost(Duration.ofSeconds(20)).until(() -> out.contains("READY"));
    }
  }

  @AfterEach
  void tearDown() {
    for (Process p : probes) {
      p.destroyForcibly(); // by PID: the handle of the process we started
    }
    if (net != null) {
      net.close();
    }
  }

  private void startProbe(int node) throws IOException {
    List<String> command = new ArrayList<>(net.execPrefix(node));
    command.addAll(
        List.of(
            ProcessHandle.current().info().command().orElse("java"),
            "-Xmx32m",
            "-XX:TieredStopAtLevel=1",
            "-cp",
            System.getProperty("java.class.path"),
            NetProbe.class.getName(),
            Integer.toString(UDP_PORT),
            Integer.toString(TCP_PORT)));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    probes.add(p);
    Queue<String> out = new ConcurrentLinkedQueue<>();
    outputs.add(out);
    Thread reader =
        new Thread(
            () -> {
              try (BufferedReader r =
                  new BufferedReader(
                      new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                  out.add(line);
                }
              } catch (IOException e) {
                // The probe was destroyed.
              }
            });
    reader.setDaemon(true);
    reader.start();
  }

  /** Sends one datagram from {@code from}'s namespace with bash's /dev/udp. */
  private boolean sendUdp(int from, int to, Plane plane, String msg) {
    List<String> c = new ArrayList<>(net.execPrefix(from));
    c.addAll(
        List.of(
            "bash",
            "-c",
            "echo " + msg + " > /dev/udp/" + net.address(to, plane) + "/" + UDP_PORT));
    return cmd.tryRun(c.toArray(String[]::new)).ok();
  }

  /** A TCP round trip from {@code from}'s namespace; true if the echo came back within 2 s. */
  private boolean tcpEcho(int from, int to) {
    List<String> c = new ArrayList<>(net.execPrefix(from));
    c.addAll(
        List.of(
            "timeout",
            "3",
            "bash",
            "-c",
            "exec 3<>/dev/tcp/"
                + net.address(to, Plane.DATA)
                + "/"
                + TCP_PORT
                + " && echo ping >&3 && read -t 2 line <&3 && [ \"$line\" = ping ]"));
    return cmd.tryRun(c.toArray(String[]::new)).ok();
  }

  private void awaitDelivered(int to, String msg) {
    Queue<String> out = outputs.get(to - 1);
    await().atMost(Duration.ofSeconds(5)).until(() -> out.contains("UDP " + msg));
  }

  private void assertNotDelivered(int to, String msg) {
    Queue<String> out = outputs.get(to - 1);
    await()
        .during(NOT_DELIVERED_WITHIN)
        .atMost(NOT_DELIVERED_WITHIN.plusSeconds(1))
        .until(() -> !out.contains("UDP " + msg));
  }

  @Test
  void shouldCutOneDirectionWithABlackholeAndRestoreItOnHeal() {
    assertTrue(sendUdp(1, 2, Plane.DATA, "before-1to2"));
    awaitDelivered(2, "before-1to2");
    assertTrue(tcpEcho(1, 2), "TCP works before the partition");

    net.drop(1, 2, Plane.DATA);

    assertFalse(sendUdp(1, 2, Plane.DATA, "cut-1to2"), "the blackhole refuses n1's packets to n2");
    assertNotDelivered(2, "cut-1to2");
    assertTrue(sendUdp(2, 1, Plane.DATA, "open-2to1"));
    awaitDelivered(1, "open-2to1"); // the other direction still flows: one-way loss
    assertTrue(sendUdp(1, 2, Plane.QUORUM, "quorum-1to2"));
    awaitDelivered(2, "quorum-1to2"); // the quorum plane is a different address
    assertFalse(tcpEcho(1, 2), "TCP from n1 to n2's data address is cut");

    net.healAll();

    assertTrue(sendUdp(1, 2, Plane.DATA, "healed-1to2"));
    awaitDelivered(2, "healed-1to2");
    assertTrue(tcpEcho(1, 2), "TCP works again after heal");
  }

  @Test
  void shouldRemoveEverythingItCreatedAndStaleNamespacesOfDeadRuns() {
    String prefix = NetNamespaces.NS_PREFIX + net.runId() + "-";
    assertTrue(cmd.run("ip", "netns", "list").stdout().contains(prefix + "n1"));
    // A namespace left behind by a harness whose PID cannot exist (above any pid_max).
    String stale = NetNamespaces.NS_PREFIX + "999999999-n1";
    cmd.run("ip", "netns", "add", stale);

    for (Process p : probes) {
      p.destroyForcibly();
    }
    net.close();
    assertEquals(List.of(stale), NetNamespaces.removeStale(cmd));

    String nsList = cmd.run("ip", "netns", "list").stdout();
    assertFalse(nsList.contains(prefix), nsList);
    assertFalse(nsList.contains(stale), nsList);
    String links = cmd.run("ip", "-o", "link", "show").stdout();
    assertFalse(links.contains(NetNamespaces.LINK_PREFIX + net.runId()), links);
  }
}
