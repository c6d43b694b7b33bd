package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool cluster unregister}'s own checks, decided before any broker is asked (the bootstrap
 * address here reaches nothing). Talking to a cluster is covered end to end ({@code
 * UnregisterBrokerE2ETest}).
 */
class ClusterUnregisterCommandTest {
  @TempDir Path dir;

  private CliRunner.Result run(String... args) {
    return new CliRunner(Map.of("SPOOL_BOOTSTRAP", "127.0.0.1:1"), dir).run("", args);
  }

  @Test
  void aMissingNegativeOrNonNumericBrokerIsAUsageError() {
    CliRunner.Result missing = run("cluster", "unregister");
    assertEquals(ExitCodes.USAGE, missing.exitCode(), missing.toString());
    assertTrue(missing.err().contains("BROKER"), missing.toString());
    CliRunner.Result negative = run("cluster", "unregister", "--", "-1");
    assertEquals(ExitCodes.USAGE, negative.exitCode(), negative.toString());
    assertTrue(negative.err().contains("must be 0 or above, got -1"), negative.toString());
    CliRunner.Result word = run("cluster", "unregister", "four");
    assertEquals(ExitCodes.USAGE, word.exitCode(), word.toString());
  }

  @Test
  void clusterHelpListsUnregister() {
    CliRunner.Result help = run("cluster", "--help");
    assertEquals(0, help.exitCode(), help.toString());
    assertTrue(help.out().contains("unregister"), help.toString());
    CliRunner.Result own = run("cluster", "unregister", "--help");
    assertEquals(0, own.exitCode(), own.toString());
    assertTrue(own.out().contains("BROKER_HAS_REPLICAS"), own.toString());
  }
}
