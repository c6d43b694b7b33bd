package dev.spool.cli;

import dev.spool.client.Admin;
import dev.spool.client.ClusterDescription;
import dev.spool.client.ElectionResult;
import dev.spool.client.TopicDescription;
import dev.spool.common.TopicPartition;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code spool cluster status|elect-leaders|unregister|drain} ({@link DrainCommand}). */
@Command(
    name = "cluster",
    mixinStandardHelpOptions = true,
    description = "Cluster and metadata quorum status.",
    subcommands = {
      ClusterCommand.Status.class,
      ClusterCommand.ElectLeaders.class,
      ClusterCommand.Unregister.class,
      DrainCommand.class
    })
final class ClusterCommand implements Callable<Integer> {
  private final CliContext ctx;

  @Spec CommandSpec spec;

  ClusterCommand(CliContext ctx) {
    this.ctx = ctx;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(ctx.err());
    return ExitCodes.USAGE;
  }

  @Command(
      name = "status",
      mixinStandardHelpOptions = true,
      description =
          "Quorum voters with their Raft lag and the leader; brokers with epoch, fenced state and "
              + "readiness; offline and under-replicated partitions.")
  static final class Status implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(
        names = "--json",
        description =
            "Print one object: controller {leader, term, commitIndex, voters}, "
                + "brokers [{id, epoch, fenced, ..., offlineDirs, ready, notReadyReason}], partition counts.")
    boolean json;

    Status(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      ClusterDescription d;
      try (Admin a = admin.open(ctx, spec)) {
        d = a.describeCluster().join();
      }
      if (json) {
        printJson(d);
      } else {
        printPlain(d);
      }
      return ExitCodes.OK;
    }

    private void printJson(ClusterDescription d) {
      JsonLines.write(
          ctx.out(),
          g -> {
            g.writeStartObject();
            g.writeStringField("clusterId", d.clusterId());
            g.writeObjectFieldStart("controller");
            g.writeNumberField("leader", d.quorum().leaderId());
            g.writeNumberField("term", d.quorum().term());
            g.writeNumberField("commitIndex", d.quorum().commitIndex());
            g.writeArrayFieldStart("voters");
            for (ClusterDescription.Voter v : d.quorum().voters()) {
              g.writeStartObject();
              g.writeNumberField("id", v.nodeId());
              g.writeStringField("address", v.address());
              g.writeNumberField("lastIndex", v.lastIndex());
              g.writeNumberField("lag", v.lag());
              g.writeNumberField("lastContactMsAgo", v.lastContactMsAgo());
              g.writeBooleanField("leader", v.nodeId() == d.quorum().leaderId());
              g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
            g.writeArrayFieldStart("brokers");
            for (ClusterDescription.Broker b : d.brokers()) {
              g.writeStartObject();
              g.writeNumberField("id", b.id());
              g.writeStringField("host", b.host());
              g.writeNumberField("port", b.port());
              g.writeStringField("rack", b.rack());
              g.writeNumberField("epoch", b.epoch());
              g.writeBooleanField("fenced", b.fenced());
              g.writeBooleanField("inControlledShutdown", b.inControlledShutdown());
              g.writeArrayFieldStart("offlineDirs");
              for (String dir : b.offlineDirs()) {
                g.writeString(dir);
              }
              g.writeEndArray();
              String notReady = b.notReadyReason();
              g.writeBooleanField("ready", notReady.isEmpty());
              g.writeStringField("notReadyReason", notReady);
              g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("offlinePartitions", d.offlinePartitions());
            g.writeNumberField("underReplicatedPartitions", d.underReplicatedPartitions());
            g.writeNumberField("underMinIsrPartitions", d.underMinIsrPartitions());
            g.writeNumberField("metadataOffset", d.metadataOffset());
            g.writeEndObject();
          });
    }

    private void printPlain(ClusterDescription d) {
      var out = ctx.out();
      out.println("Cluster " + d.clusterId() + " (metadata offset " + d.metadataOffset() + ")");
      ClusterDescription.Quorum q = d.quorum();
      out.println(
          "Metadata quorum: leader "
              + (q.leaderId() < 0 ? "unknown" : q.leaderId())
              + ", term "
              + q.term()
              + ", commit index "
              + q.commitIndex());
      for (ClusterDescription.Voter v : q.voters()) {
        out.printf(
            "  voter %-4d %-22s %-8s last index %-10d lag %-8s last contact %s%n",
            v.nodeId(),
            v.address(),
            v.nodeId() == q.leaderId() ? "leader" : "follower",
            v.lastIndex(),
            v.lag() < 0 ? "?" : v.lag(),
            v.lastContactMsAgo() < 0 ? "?" : v.lastContactMsAgo() + " ms ago");
      }
      out.println("Brokers:");
      for (ClusterDescription.Broker b : d.brokers()) {
        String notReady = b.notReadyReason();
        out.printf(
            "  broker %-4d %-22s epoch %-10d %-13s %s%n",
            b.id(),
            b.host() + ":" + b.port(),
            b.epoch(),
            b.fenced()
                ? "FENCED"
                : !b.offlineDirs().isEmpty()
                    ? "DIR OFFLINE"
                    : b.inControlledShutdown() ? "shutting down" : "active",
            notReady.isEmpty() ? "ready" : "NOT READY (" + notReady + ")");
      }
      out.println(
          "Partitions: "
              + d.offlinePartitions()
              + " offline, "
              + d.underReplicatedPartitions()
              + " under-replicated, "
              + d.underMinIsrPartitions()
              + " under min ISR");
    }
  }

  @Command(
      name = "elect-leaders",
      mixinStandardHelpOptions = true,
      description =
          "Elect partition leaders: preferred (first in-sync replica of the assignment) or unclean.")
  static final class ElectLeaders implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Option(names = "--type", defaultValue = "preferred", paramLabel = "preferred|unclean")
    String type;

    @Option(
        names = "--topic",
        paramLabel = "T",
        description = "Only this topic (default: every partition).")
    String topic;

    @Option(
        names = "--partition",
        paramLabel = "N",
        split = ",",
        description = "Only these partitions of --topic.")
    List<Integer> partitions;

    ElectLeaders(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      Admin.ElectionType election =
          switch (type) {
            case "preferred" -> Admin.ElectionType.PREFERRED;
            case "unclean" -> Admin.ElectionType.UNCLEAN;
            default ->
                throw new ParameterException(
                    spec.commandLine(), "--type must be preferred or unclean");
          };
      if (partitions != null && topic == null) {
        throw new ParameterException(spec.commandLine(), "--partition needs --topic");
      }
      List<ElectionResult> results;
      try (Admin a = admin.open(ctx, spec)) {
        List<TopicPartition> tps = new ArrayList<>();
        if (topic != null && partitions != null) {
          partitions.forEach(p -> tps.add(new TopicPartition(topic, p)));
        } else if (topic != null) {
          TopicDescription d = a.describeTopic(topic).join();
          d.partitions().forEach(p -> tps.add(new TopicPartition(topic, p.partition())));
        }
        results = a.electLeaders(election, tps).join();
      }
      boolean failed = false;
      for (ElectionResult r : results) {
        ctx.out()
            .println(
                r.partition()
                    + "\t"
                    + r.error().name()
                    + (r.message().isEmpty() ? "" : "\t" + r.message()));
        failed |= !r.succeeded();
      }
      return failed ? ExitCodes.FAILED : ExitCodes.OK;
    }
  }

  @Command(
      name = "unregister",
      mixinStandardHelpOptions = true,
      description =
          "Remove a dead broker's registration, as Kafka's kafka-cluster unregister. Refused"
              + " (nothing changes) for an unknown id (BROKER_ID_NOT_REGISTERED), a broker that is"
              + " alive (BROKER_ALIVE: stop it first), one still named in a replica set"
              + " (BROKER_HAS_REPLICAS: 'spool cluster drain' it first), or below metadata.version"
              + " 3."
              + " A broker started again later registers as new.")
  static final class Unregister implements Callable<Integer> {
    private final CliContext ctx;
    @Spec CommandSpec spec;
    @Mixin AdminOptions admin = new AdminOptions();

    @Parameters(index = "0", paramLabel = "BROKER", description = "The broker id (node.id).")
    int brokerId;

    @Option(names = "--json", description = "Print {brokerId, unregistered}.")
    boolean json;

    Unregister(CliContext ctx) {
      this.ctx = ctx;
    }

    @Override
    public Integer call() {
      if (brokerId < 0) {
        throw new ParameterException(
            spec.commandLine(), "BROKER must be 0 or above, got " + brokerId);
      }
      try (Admin a = admin.open(ctx, spec)) {
        a.unregisterBroker(brokerId).join();
      }
      if (json) {
        JsonLines.write(
            ctx.out(),
            g -> {
              g.writeStartObject();
              g.writeNumberField("brokerId", brokerId);
              g.writeBooleanField("unregistered", true);
              g.writeEndObject();
            });
      } else {
        ctx.out().println("Unregistered broker " + brokerId);
      }
      return ExitCodes.OK;
    }
  }
}
