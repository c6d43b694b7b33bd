package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool user}'s own checks, decided before any broker is asked (the bootstrap address here
 * reaches nothing): a missing password or an unknown mechanism is a usage error that says which.
 * Talking to a cluster is covered end to end ({@code SaslE2ETest}).
 */
class UserCommandTest {
  @TempDir Path dir;

  private CliRunner.Result run(String stdin, String... args) {
    return new CliRunner(Map.of("SPOOL_BOOTSTRAP", "127.0.0.1:1"), dir).run(stdin, args);
  }

  @Test
  void createWithoutAPasswordIsAUsageErrorThatSaysWhereOneComesFrom() {
    CliRunner.Result r = run("", "user", "create", "alice");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains("no password"), r.toString());
  }

  @Test
  void anEmptyPasswordIsAUsageError() {
    CliRunner.Result r = run("", "user", "create", "alice", "--password", "");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains("empty password"), r.toString());
  }

  @Test
  void anUnknownMechanismIsAUsageErrorNamingTheKnownOnes() {
    CliRunner.Result r =
        run("", "user", "create", "alice", "--password", "pw", "--mechanism", "SCRAM-MD5");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains("unknown mechanism 'SCRAM-MD5'"), r.toString());
    assertTrue(r.err().contains("SCRAM-SHA-256, SCRAM-SHA-512"), r.toString());
    CliRunner.Result d = run("", "user", "delete", "alice", "--mechanism", "PLAIN");
    assertEquals(ExitCodes.USAGE, d.exitCode(), d.toString());
  }

  @Test
  void helpListsTheSubcommands() {
    CliRunner.Result r = run("", "user", "--help");
    assertEquals(0, r.exitCode(), r.toString());
    for (String sub : new String[] {"create", "delete", "list"}) {
      assertTrue(r.out().contains(sub), r.toString());
    }
  }
}
