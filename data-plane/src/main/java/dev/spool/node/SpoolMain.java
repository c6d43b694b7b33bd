package dev.spool.node;

import dev.spool.cli.SpoolCommand;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code spool} executable: the client command line ({@code produce}, {@code consume}, {@code
 * topic}, {@code cluster}, {@code perf}) plus {@code node start}.
 */
public final class SpoolMain {
  private SpoolMain() {}

  public static CommandLine commandLine() {
    CommandLine cl = SpoolCommand.commandLine(Map.of("node", new NodeCommand()));
    cl.getSubcommands()
        .get("node")
        .getSubcommands()
        .get("start")
        .getCommandSpec()
        .usageMessage()
        .footer(NodeCommand.keysHelp());
    return cl;
  }

  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }
}
