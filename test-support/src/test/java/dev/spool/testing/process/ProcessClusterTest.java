package dev.spool.testing.process;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.spool.testing.ClusterMode;
import dev.spool.testing.SpoolClusterTest;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The process harness against real node processes: signals by PID, restarts, a clean stop. */
@Tag("integration")
@SpoolClusterTest(nodes = 3, mode = ClusterMode.PROCESS)
class ProcessClusterTest {
  @Test
  @Timeout(value = 240, unit = TimeUnit.SECONDS)
  void shouldSignalRestartAndStopNodesByTheirPids(ProcessCluster c) throws Exception {
    int victim = c.activeController().orElseThrow();
    long pid = c.pid(victim);
    assertTrue(ProcessHandle.of(pid).isPresent());
    assertEquals(List.of(1, 2, 3), c.nodes());
    assertTrue(
        Files.readString(c.configFile(victim)).contains("listener=127.0.0.1:"), "loopback only");

    c.kill(victim, Signal.KILL);
    assertFalse(c.isRunning(victim));
    assertFalse(
        ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "pid " + pid + " is gone");
    // The survivors elect a new active controller (a second or two when quiet; the bound is for a
    // loaded 2-core CI machine, where this test once waited more than 30 s).
    await()
        .atMost(Duration.ofSeconds(90))
        .untilAsserted(
            () ->
                assertNotEquals(
                    victim,
                    c.activeController().orElse(victim),
                    "survivors " + c.servingNodes() + " still name no new active controller"));

    c.start(victim);
    assertNotEquals(pid, c.pid(victim));
    c.awaitReady(Duration.ofSeconds(60));

    int paused =
        c.nodes().stream()
            .filter(n -> n != c.activeController().orElse(-1))
            .findFirst()
            .orElseThrow();
    c.kill(paused, Signal.STOP);
    assertTrue(c.isRunning(paused));
    assertFalse(c.isServing(paused));
    assertFalse(c.servingNodes().contains(paused));
    c.kill(paused, Signal.CONT);
    assertTrue(c.isServing(paused));
    c.awaitReady(Duration.ofSeconds(60));

    List<Long> pids = c.nodes().stream().map(c::pid).toList();
    c.close();
    for (long p : pids) {
      assertFalse(
          ProcessHandle.of(p).map(ProcessHandle::isAlive).orElse(false), "pid " + p + " stopped");
    }
    assertTrue(
        Files.readString(c.logFile(victim)).contains("=== harness"),
        "the log carries the harness timeline");
  }
}
