package dev.spool.chaos.run;

import dev.spool.chaos.checker.Availability;
import dev.spool.chaos.checker.CheckResult;
import dev.spool.chaos.checker.FaultTimeline;
import dev.spool.chaos.checker.Validity;
import dev.spool.chaos.cluster.KafkaCluster;
import dev.spool.chaos.nemesis.FaultKind;
import dev.spool.chaos.nemesis.NemesisFamily;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code scripts/chaos.sh}: a chaos run from the command line, for long runs.
 *
 * <pre>
 * chaos.sh --nodes 5 --duration 30m --nemesis kill,pause,partition,disk,restart,latency --seed 7 [--dir DIR]
 * chaos.sh --scenario process --seed 11 [--dir DIR]
 * chaos.sh --secure ...                 (any run with mutual TLS everywhere and ACLs)
 * chaos.sh --system kafka --nodes 3 --duration 180s --nemesis kill,pause,partition --seed 7
 *                                       (the same run against Apache Kafka, the anchor)
 * </pre>
 *
 * Prints progress as it goes (acks per second, counts, the faults active), then the verdict, the
 * figures and the report path. Exit status: 0 no anomaly, 1 anomalies found, 2 usage error, 3 the
 * harness failed (including a checker that could not judge: a run that proves nothing must not
 * pass).
 */
public final class ChaosMain {
  static final int OK = 0;
  static final int ANOMALIES = 1;
  static final int USAGE = 2;
  static final int HARNESS_FAILURE = 3;
  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)?");
  private static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss");

  static final String USAGE_TEXT =
      """
      usage: chaos.sh [--system spool|kafka] --nodes N --duration D --nemesis LIST [--seed S]
                      [--dir DIR] [--producers P] [--rate SENDS_PER_S_PER_PRODUCER] [--secure]
             chaos.sh --scenario NAME [--seed S] [--dir DIR] [--secure]
        --system     spool (default) or kafka: the same workload, schedule and checkers against
                     Apache Kafka 4.x (KRaft, combined roles) with Kafka's Java client; kill,
                     pause, partition and restart only; the Kafka jars come from the Kafka peer
                     harness (chaos-tests/README.md, "Kafka under the same faults")
        --nodes      combined broker+controller nodes, 3..9 (default 5)
        --duration   fault phase: 90s, 5m, 30m, 1h (heal, drain and checks come after)
        --nemesis    comma list of kill, pause, partition, disk, restart, latency (client links
                     through fault proxies: latency, slow link, dropped connections; also 'proxy'),
                     flap (a node's links cut and healed every second, a node stopped 1 s of every 3)
        --seed       seed of the schedule, the disk damage and the workload (default: random, printed)
        --dir        where run folders go (default ./chaos-runs)
        --scenario   one of the JUnit chaos tier's fixed scenarios: %s
        --secure     security on: mutual TLS on the Spool listeners, replication and the quorum,
                     the authorizer, the workload with only its ACLs, an intruder without any;
                     a refused workload request or an intruder let in counts as an anomaly
      exit status: 0 no anomaly, 1 anomalies found, 2 usage error, 3 harness failure
      """;

  private ChaosMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  static int run(String[] args, PrintStream out, PrintStream err) {
    Args a;
    try {
      a = Args.parse(args);
    } catch (IllegalArgumentException e) {
      err.println("chaos: " + e.getMessage());
      err.print(USAGE_TEXT.formatted(Scenarios.all().keySet()));
      return USAGE;
    }
    if (a.help) {
      out.print(USAGE_TEXT.formatted(Scenarios.all().keySet()));
      return OK;
    }
    ChaosOptions options = options(a);
    out.println("chaos: seed " + a.seed + "; re-run exactly with: " + a.rerunCommand());
    ChaosRun.Result r;
    java.util.function.Consumer<String> progress =
        line -> {
          out.println(CLOCK.format(LocalTime.now()) + " " + line);
          out.flush();
        };
    try {
      r =
          a.system == SystemUnderTest.KAFKA
              ? new KafkaChaosRun(options, KafkaCluster.libFromSystemProperty(), progress).run()
              : new ChaosRun(options, progress).run();
    } catch (Exception | Error e) {
      err.println("chaos: HARNESS FAILURE: " + e);
      e.printStackTrace(err);
      err.println("re-run: " + a.rerunCommand());
      return HARNESS_FAILURE;
    }
    summary(r, out);
    out.println("re-run: " + a.rerunCommand());
    out.println("report: " + r.index());
    if (r.verdict().valid() == Validity.FALSE || !SecureRun.problems(r.counts()).isEmpty()) {
      return ANOMALIES;
    }
    if (r.verdict().valid() == Validity.UNKNOWN) {
      err.println(
          "chaos: some checkers could not judge this run; it proves nothing (see "
              + r.index()
              + ")");
      return HARNESS_FAILURE;
    }
    return OK;
  }

  /**
   * The run's options from the command line; the system under test is not among them, so a Kafka
   * run gets exactly the options (and so the schedule) of the Spool run with the same arguments.
   */
  static ChaosOptions options(Args a) {
    ChaosOptions options =
        a.scenario != null
            ? Scenarios.options(Scenarios.get(a.scenario), a.seed, a.dir, a.rerunCommand())
            : ChaosOptions.defaults(
                    "random", a.nodes, a.duration, a.families, a.seed, a.dir, a.rerunCommand())
                .withLoad(a.producers, 2, a.rate);
    return options.withSecure(options.secure() || a.secure);
  }

  /**
   * The figures a person wants at the end: counts, anomalies per checker, worst outage per fault
   * kind.
   */
  static void summary(ChaosRun.Result r, PrintStream out) {
    out.println(
        "==== "
            + r.runId()
            + ": "
            + (r.verdict().valid() == Validity.TRUE
                ? "VALID, no anomaly"
                : r.verdict().valid() == Validity.FALSE
                    ? "INVALID, " + r.verdict().anomalyCount() + " anomalies"
                    : "UNKNOWN"));
    out.println("counts: " + r.counts());
    for (CheckResult c : r.verdict().results().values()) {
      if (c.valid() != Validity.TRUE) {
        out.println(
            "  "
                + c.checker()
                + ": "
                + c.valid()
                + ", "
                + c.anomalyCount()
                + " anomalies"
                + (c.anomalies().isEmpty() ? "" : "; first: " + c.anomalies().get(0).summary()));
      }
    }
    Map<FaultKind, long[]> worst = new TreeMap<>();
    for (Availability.WindowAvailability w : r.verdict().availability().faults()) {
      long gapMs = w.longestGap() == null ? 0 : w.longestGap().durationNs() / 1_000_000;
      long[] v = worst.computeIfAbsent(w.kind(), k -> new long[2]);
      v[0]++;
      v[1] = Math.max(v[1], gapMs);
    }
    out.println(
        "longest time without an acknowledged write, per fault kind (overlapping gap, unclipped):");
    worst.forEach(
        (k, v) ->
            out.printf(
                Locale.ROOT, "  %-32s %3d faults, longest gap %6.1f s%n", k, v[0], v[1] / 1000.0));
    timelines(r.verdict().timelines(), out);
    r.notes().forEach(n -> out.println("note: " + n));
  }

  /** Per fault, ms from its start to each step of the recovery (chaos-tests/README.md). */
  static void timelines(List<FaultTimeline> timelines, PrintStream out) {
    if (timelines.isEmpty()) {
      return;
    }
    out.println("where each second went (ms after the fault started; - = did not happen):");
    out.printf(
        Locale.ROOT,
        "  %3s %-34s %9s %9s %9s %9s %9s%n",
        "#",
        "fault",
        "detection",
        "decision",
        "takeover",
        "client",
        "first ack");
    for (FaultTimeline t : timelines) {
      String label = t.label().length() > 34 ? t.label().substring(0, 33) + "…" : t.label();
      out.printf(
          Locale.ROOT,
          "  %3d %-34s %9s %9s %9s %9s %9s%n",
          t.faultId(),
          label,
          FaultTimeline.cell(t.detection()),
          FaultTimeline.cell(t.decision()),
          FaultTimeline.cell(t.takeover()),
          FaultTimeline.cell(t.clientSwitch()),
          FaultTimeline.cell(t.firstAck()));
    }
  }

  /** Which system a run tests. */
  enum SystemUnderTest {
    SPOOL,
    KAFKA
  }

  /** Parsed command line. */
  static final class Args {
    SystemUnderTest system = SystemUnderTest.SPOOL;
    int nodes = 5;
    Duration duration = Duration.ofMinutes(5);
    Set<NemesisFamily> families =
        EnumSet.of(
            NemesisFamily.KILL, NemesisFamily.PAUSE, NemesisFamily.PARTITION, NemesisFamily.DISK);
    long seed = ThreadLocalRandom.current().nextLong(1, 1_000_000);
    Path dir = Path.of("chaos-runs");
    String scenario;
    int producers = 4;
    double rate = 25;
    boolean help;
    boolean secure;
    final Map<String, String> given = new LinkedHashMap<>();

    static Args parse(String[] argv) {
      Args a = new Args();
      for (int i = 0; i < argv.length; i++) {
        String k = argv[i];
        if (k.equals("-h") || k.equals("--help")) {
          a.help = true;
          continue;
        }
        if (k.equals("--secure")) {
          a.secure = true;
          continue;
        }
        if (!k.startsWith("--") || i + 1 >= argv.length) {
          throw new IllegalArgumentException("expected --option VALUE, got '" + k + "'");
        }
        String v = argv[++i];
        a.given.put(k, v);
        switch (k) {
          case "--nodes" -> a.nodes = intIn(k, v, 3, 9);
          case "--duration" -> a.duration = duration(v);
          case "--nemesis" -> a.families = families(v);
          case "--seed" -> a.seed = longOf(k, v);
          case "--dir" -> a.dir = Path.of(v);
          case "--scenario" -> {
            if (!Scenarios.all().containsKey(v)) {
              throw new IllegalArgumentException("no scenario '" + v + "'");
            }
            a.scenario = v;
          }
          case "--producers" -> a.producers = intIn(k, v, 1, 64);
          case "--system" ->
              a.system =
                  switch (v.toLowerCase(Locale.ROOT)) {
                    case "spool" -> SystemUnderTest.SPOOL;
                    case "kafka" -> SystemUnderTest.KAFKA;
                    default ->
                        throw new IllegalArgumentException(
                            "--system: '" + v + "' is neither spool nor kafka");
                  };
          case "--rate" -> a.rate = Double.parseDouble(v);
          default -> throw new IllegalArgumentException("unknown option " + k);
        }
      }
      if (a.scenario != null
          && (a.given.containsKey("--nodes")
              || a.given.containsKey("--nemesis")
              || a.given.containsKey("--duration"))) {
        throw new IllegalArgumentException(
            "--scenario fixes nodes, duration and nemeses; give only --seed and --dir");
      }
      if (a.system == SystemUnderTest.KAFKA) {
        if (a.scenario != null || a.secure) {
          throw new IllegalArgumentException(
              "--system kafka runs a generated schedule only: no --scenario, no --secure");
        }
        Set<NemesisFamily> not = EnumSet.copyOf(a.families);
        not.removeAll(KafkaChaosRun.FAMILIES);
        if (!not.isEmpty()) {
          throw new IllegalArgumentException(
              "--system kafka: no "
                  + not.stream().map(f -> f.name().toLowerCase(Locale.ROOT)).toList()
                  + " nemesis against Kafka (kill, pause, partition, restart)");
        }
      }
      return a;
    }

    /** The command that repeats this run: every choice spelled out, the seed included. */
    String rerunCommand() {
      List<String> parts = new ArrayList<>(List.of("scripts/chaos.sh"));
      if (system == SystemUnderTest.KAFKA) {
        parts.addAll(List.of("--system", "kafka"));
      }
      if (scenario != null) {
        parts.addAll(List.of("--scenario", scenario));
      } else {
        parts.addAll(
            List.of(
                "--nodes",
                Integer.toString(nodes),
                "--duration",
                duration.toSeconds() + "s",
                "--nemesis",
                String.join(
                    ",",
                    families.stream()
                        .map(
                            f ->
                                f == NemesisFamily.PROXY
                                    ? "latency"
                                    : f.name().toLowerCase(Locale.ROOT))
                        .toList())));
        if (given.containsKey("--producers")) {
          parts.addAll(List.of("--producers", Integer.toString(producers)));
        }
        if (given.containsKey("--rate")) {
          parts.addAll(List.of("--rate", given.get("--rate")));
        }
      }
      parts.addAll(List.of("--seed", Long.toString(seed)));
      if (secure) {
        parts.add("--secure");
      }
      if (given.containsKey("--dir")) {
        parts.addAll(List.of("--dir", given.get("--dir")));
      }
      return String.join(" ", parts);
    }

    static Duration duration(String v) {
      Matcher m = DURATION.matcher(v.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException("--duration: '" + v + "' is not like 90s, 5m, 1h");
      }
      long n = Long.parseLong(m.group(1));
      String unit = m.group(2) == null ? "s" : m.group(2);
      Duration d =
          switch (unit) {
            case "ms" -> Duration.ofMillis(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofSeconds(n);
          };
      if (d.compareTo(Duration.ofSeconds(20)) < 0 || d.compareTo(Duration.ofHours(24)) > 0) {
        throw new IllegalArgumentException("--duration must be between 20s and 24h: " + v);
      }
      return d;
    }

    static Set<NemesisFamily> families(String v) {
      Set<NemesisFamily> out = EnumSet.noneOf(NemesisFamily.class);
      for (String s : v.split(",")) {
        String n = s.trim().toLowerCase(Locale.ROOT);
        if (n.isEmpty()) {
          continue;
        }
        out.add(
            switch (n) {
              case "kill" -> NemesisFamily.KILL;
              case "pause" -> NemesisFamily.PAUSE;
              case "partition" -> NemesisFamily.PARTITION;
              case "disk" -> NemesisFamily.DISK;
              case "restart" -> NemesisFamily.RESTART;
              case "latency", "proxy", "client" -> NemesisFamily.PROXY;
              case "flap" -> NemesisFamily.FLAP;
              default ->
                  throw new IllegalArgumentException(
                      "--nemesis: unknown '"
                          + s
                          + "' (kill, pause, partition, disk, restart, latency, flap)");
            });
      }
      if (out.isEmpty()) {
        throw new IllegalArgumentException("--nemesis needs at least one family");
      }
      return out;
    }

    private static int intIn(String k, String v, int lo, int hi) {
      long n = longOf(k, v);
      if (n < lo || n > hi) {
        throw new IllegalArgumentException(k + " must be in " + lo + ".." + hi + ": " + v);
      }
      return (int) n;
    }

    private static long longOf(String k, String v) {
      try {
        return Long.parseLong(v);
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(k + " needs a number: '" + v + "'");
      }
    }
  }
}
