package dev.spool.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code spool perf produce|consume|e2e}: load generators in the manner of Kafka's tools. */
@Command(
    name = "perf",
    mixinStandardHelpOptions = true,
    description =
        "Benchmarks: producer throughput, consumer throughput, fixed-rate end-to-end latency.",
    subcommands = {PerfProduceTool.class, PerfConsumeTool.class, PerfEndToEndTool.class})
final class PerfCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  PerfCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }
}
