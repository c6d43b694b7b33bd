package dev.spool.node;

import dev.spool.cli.CliContext;
import dev.spool.cli.SpoolCommand;
import java.util.Map;
import picocli.CommandLine;

/**
 * The {@code spool} executable: the client command line ({@code produce}, {@code consume}, {@code
 * topic}, {@code cluster}, {@code perf}) plus {@code node start} and {@code storage
 * format|random-uuid} and {@code quorum describe|add-voter|remove-voter}.
 */
public final class SpoolMain {
  private SpoolMain() {}

  public static CommandLine commandLine() {
    return commandLine(CliContext.system());
  }

  /** The command line bound to {@code ctx} (tests capture its streams). */
  public static CommandLine commandLine(CliContext ctx) {
    CommandLine cl =
        SpoolCommand.commandLine(
            ctx,
            Map.of(
                "node",
                new NodeCommand(),
                "storage",
                new StorageCommand(),
                "quorum",
                new QuorumCommand()));
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
