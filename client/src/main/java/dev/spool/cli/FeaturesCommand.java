package dev.spool.cli;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.spool.client.Admin;
import dev.spool.protocol.message.DescribeFeaturesResponse;
import dev.spool.protocol.message.UpdateFeaturesResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code spool features describe|upgrade}: the cluster's finalized metadata.version and the range
 * each node supports, and raising it after every node runs a release that supports the new level,
 * as Kafka's {@code kafka-features} (docs/operations.md#upgrades).
 */
@Command(
    name = "features",
    mixinStandardHelpOptions = true,
    description = "Finalized feature levels (metadata.version) and each node's supported range.",
    subcommands = {FeaturesCommand.Describe.class, FeaturesCommand.Upgrade.class})
final class FeaturesCommand implements Callable<Integer> {
  static final String METADATA_VERSION = "metadata.version";

  private final CliContext ctx;

  @Spec CommandSpec spec;

  FeaturesCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  @Command(
      name = "describe",
      mixinStandardHelpOptions = true,
      description =
          "The finalized metadata.version, the range each registered node supports and the range"
              + " each controller reported.")
  static final class Describe implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(
        names = "--json",
        description =
            "Print {finalized: {metadata.version: N}, nodes: [{id, fenced, supported:"
                + " {metadata.version: {min, max}}}], controllers: [{id, voter, supported: {...}}]};"
                + " no metadata.version key before one is finalized; supported is empty for a"
                + " controller that has not reported its range yet.")
    boolean json;

    Describe(CliContext ctx) {
      this.ctx = ctx;
    }

    /** {@code "supported": {"<feature>": {"min": .., "max": ..}, ...}} of a node or controller. */
    private static void writeSupported(
        JsonGenerator g, List<DescribeFeaturesResponse.SupportedFeature> supported)
        throws IOException {
      g.writeObjectFieldStart("supported");
      for (DescribeFeaturesResponse.SupportedFeature s : supported) {
        g.writeObjectFieldStart(s.getName());
        g.writeNumberField("min", s.getMinLevel());
        g.writeNumberField("max", s.getMaxLevel());
        g.writeEndObject();
      }
      g.writeEndObject();
    }

    @Override
    public Integer call() {
      DescribeFeaturesResponse d;
      try (Admin a = admin.open(ctx, spec)) {
        d = a.describeFeatures().join();
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeObjectFieldStart("finalized");
              for (DescribeFeaturesResponse.FinalizedFeature f : d.getFinalizedList()) {
                g.writeNumberField(f.getName(), f.getLevel());
              }
              g.writeEndObject();
              g.writeArrayFieldStart("nodes");
              for (DescribeFeaturesResponse.NodeFeatures n : d.getNodesList()) {
                g.writeStartObject();
                g.writeNumberField("id", n.getNodeId());
                g.writeBooleanField("fenced", n.getFenced());
                writeSupported(g, n.getSupportedList());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeArrayFieldStart("controllers");
              for (DescribeFeaturesResponse.ControllerFeatures c : d.getControllersList()) {
                g.writeStartObject();
                g.writeNumberField("id", c.getNodeId());
                g.writeBooleanField("voter", c.getVoter());
                writeSupported(g, c.getSupportedList());
                g.writeEndObject();
              }
              g.writeEndArray();
              g.writeEndObject();
            });
        return ExitCodes.OK;
      }
      if (d.getFinalizedCount() == 0) {
        ctx.out().println("Feature: metadata.version  Finalized: (none yet)");
      }
      for (DescribeFeaturesResponse.FinalizedFeature f : d.getFinalizedList()) {
        ctx.out().println("Feature: " + f.getName() + "  Finalized: " + f.getLevel());
      }
      for (DescribeFeaturesResponse.NodeFeatures n : d.getNodesList()) {
        List<String> parts = new ArrayList<>();
        for (DescribeFeaturesResponse.SupportedFeature s : n.getSupportedList()) {
          parts.add(s.getName() + " " + s.getMinLevel() + ".." + s.getMaxLevel());
        }
        ctx.out()
            .println(
                "  node "
                    + n.getNodeId()
                    + (n.getFenced() ? " (fenced)" : "")
                    + "  supports "
                    + String.join(", ", parts));
      }
      for (DescribeFeaturesResponse.ControllerFeatures c : d.getControllersList()) {
        List<String> parts = new ArrayList<>();
        for (DescribeFeaturesResponse.SupportedFeature s : c.getSupportedList()) {
          parts.add(s.getName() + " " + s.getMinLevel() + ".." + s.getMaxLevel());
        }
        ctx.out()
            .println(
                "  controller "
                    + c.getNodeId()
                    + (c.getVoter() ? " (voter)" : " (listener)")
                    + "  supports "
                    + (parts.isEmpty() ? "(not reported yet)" : String.join(", ", parts)));
      }
      return ExitCodes.OK;
    }
  }

  @Command(
      name = "upgrade",
      mixinStandardHelpOptions = true,
      description =
          "Raises metadata.version. Refused (nothing changes) when a registered node, the active"
              + " controller or a voter of the quorum does not support the level, while a voter has"
              + " not reported its range yet, or when the level is below the finalized one (no"
              + " downgrade).")
  static final class Upgrade implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(
        names = "--metadata-version",
        required = true,
        paramLabel = "N",
        description = "The level to finalize (1 or above).")
    int level;

    @Option(
        names = "--dry-run",
        description = "Ask the controller whether it would; change nothing.")
    boolean dryRun;

    @Option(names = "--json", description = "Print {feature, previous, level, dryRun}.")
    boolean json;

    Upgrade(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      if (level < 1) {
        throw new ParameterException(
            spec.commandLine(), "--metadata-version must be 1 or above, got " + level);
      }
      UpdateFeaturesResponse.Result r;
      try (Admin a = admin.open(ctx, spec)) {
        r = a.updateFeature(METADATA_VERSION, level, dryRun).join();
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeStringField("feature", METADATA_VERSION);
              g.writeNumberField("previous", r.getPreviousLevel());
              g.writeNumberField("level", level);
              g.writeBooleanField("dryRun", dryRun);
              g.writeEndObject();
            });
      } else {
        ctx.out()
            .println(
                (dryRun ? "Would finalize " : "Finalized ")
                    + METADATA_VERSION
                    + " "
                    + level
                    + " (was "
                    + r.getPreviousLevel()
                    + ")");
      }
      return ExitCodes.OK;
    }
  }
}
