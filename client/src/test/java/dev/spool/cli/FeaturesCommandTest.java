package dev.spool.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code spool features}' own checks, decided before any broker is asked (the bootstrap address
 * here reaches nothing). Talking to a cluster is covered end to end ({@code FeaturesE2ETest}).
 */
class FeaturesCommandTest {
  @TempDir Path dir;

  private CliRunner.Result run(String... args) {
    return new CliRunner(Map.of("SPOOL_BOOTSTRAP", "127.0.0.1:1"), dir).run("", args);
  }

  @Test
  void upgradeWithoutALevelIsAUsageErrorNamingTheOption() {
    CliRunner.Result r = run("features", "upgrade");
    assertEquals(ExitCodes.USAGE, r.exitCode(), r.toString());
    assertTrue(r.err().contains("--metadata-version"), r.toString());
  }

  @Test
  void aLevelBelowOneOrNotANumberIsAUsageError() {
    CliRunner.Result zero = run("features", "upgrade", "--metadata-version", "0");
    assertEquals(ExitCodes.USAGE, zero.exitCode(), zero.toString());
    assertTrue(zero.err().contains("must be 1 or above, got 0"), zero.toString());
    CliRunner.Result word = run("features", "upgrade", "--metadata-version", "latest");
    assertEquals(ExitCodes.USAGE, word.exitCode(), word.toString());
  }

  @Test
  void noSubcommandPrintsUsageAndHelpListsTheSubcommands() {
    CliRunner.Result bare = run("features");
    assertEquals(ExitCodes.USAGE, bare.exitCode(), bare.toString());
    CliRunner.Result help = run("features", "--help");
    assertEquals(0, help.exitCode(), help.toString());
    assertTrue(help.out().contains("describe") && help.out().contains("upgrade"), help.toString());
  }
}
