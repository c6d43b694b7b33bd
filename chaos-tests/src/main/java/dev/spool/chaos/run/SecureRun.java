package dev.spool.chaos.run;

import dev.spool.chaos.cluster.ChaosSecurity;
import dev.spool.chaos.history.History;
import dev.spool.chaos.history.Op;
import dev.spool.chaos.nemesis.FaultWindow;
import dev.spool.chaos.workload.Intruder;
import dev.spool.common.TopicPartition;
import dev.spool.testing.process.NodeNetwork;
import dev.spool.testing.process.ProcessCluster;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * What a {@link ChaosRun} with {@link ChaosOptions#secure} adds ({@link ChaosSecurity}): the key
 * material, the node keys, the workload's ACLs, its client keys, the {@link Intruder}, and the
 * figures that say whether security held under the faults:
 *
 * <ul>
 *   <li>{@code workloadAuthorizationFailures}: ops of the workload's history that ended with an
 *       authorization error (its requests are legitimate: must be 0);
 *   <li>{@code workloadDenialsLogged}: the brokers' audit lines denying the workload's principal
 *       once its ACLs were in place (must be 0: a denial the client retried away still shows
 *       there);
 *   <li>{@code intruderAttempts}, {@code intruderRefused}, {@code intruderRefusedDuringFaults},
 *       {@code faultWindowsWithIntruderRefused} (fault windows in which it was refused at least
 *       once), {@code noCertificateRefused} (attempts without a certificate refused at the
 *       handshake), {@code intruderAccepted} (must be 0: over all attempts, with or without a
 *       certificate), {@code intruderUnanswered}.
 * </ul>
 *
 * A plain run gets an instance that does nothing. Used by the run's thread.
 */
final class SecureRun {
  /** The intruder tries once a second: enough to land in every fault window of a few seconds. */
  static final Duration INTRUDER_INTERVAL = Duration.ofSeconds(1);

  private final ChaosSecurity security;
  private final Map<Path, Long> logStarts = new LinkedHashMap<>();
  private Intruder intruder;

  private SecureRun(ChaosSecurity security) {
    this.security = security;
  }

  static SecureRun of(ChaosOptions options, Path runDir) {
    return new SecureRun(options.secure() ? ChaosSecurity.in(runDir.resolve("keys")) : null);
  }

  boolean on() {
    return security != null;
  }

  NodeNetwork network(NodeNetwork network) {
    return on() ? security.securing(network) : network;
  }

  Map<String, String> nodeConfig() {
    return on() ? security.nodeConfig() : Map.of();
  }

  Map<String, String> workloadClient() {
    return on() ? security.workloadClient() : Map.of();
  }

  /**
   * Grants the workload its ACLs on {@code topics}, once they exist, and notes where each node's
   * log ends then: the grant's own wait asks as the workload and is denied until a broker has the
   * ACLs, so only denials logged after it count.
   */
  void grant(ProcessCluster cluster, List<String> topics, Duration timeout) throws IOException {
    if (on()) {
      security.grant(cluster, topics, timeout);
      for (Path log : cluster.logFiles()) {
        logStarts.put(log, Files.exists(log) ? Files.size(log) : 0L);
      }
    }
  }

  void startIntruder(String bootstrap, List<TopicPartition> tps, LongSupplier clock) {
    if (on()) {
      intruder =
          new Intruder(
              bootstrap,
              security.intruderClient(),
              security.noCertificateClient(),
              tps,
              INTRUDER_INTERVAL,
              clock);
      intruder.start();
    }
  }

  void stopIntruder() throws InterruptedException {
    if (intruder != null) {
      intruder.close();
    }
  }

  /** The figures of the class doc (none for a plain run). */
  Map<String, Long> counts(History history, List<FaultWindow> timeline, List<Path> nodeLogs)
      throws IOException {
    Map<String, Long> c = new LinkedHashMap<>();
    if (!on()) {
      return c;
    }
    c.put(
        "workloadAuthorizationFailures",
        history.ops().stream().filter(SecureRun::authorizationFailure).count());
    c.put("workloadDenialsLogged", denials(nodeLogs, ChaosSecurity.WORKLOAD_PRINCIPAL, logStarts));
    List<Intruder.Attempt> attempts = intruder == null ? List.of() : intruder.attempts();
    c.put("intruderAttempts", (long) attempts.size());
    c.put("intruderRefused", count(attempts, Intruder.Outcome.REFUSED));
    c.put(
        "intruderRefusedDuringFaults",
        attempts.stream()
            .filter(a -> a.outcome() == Intruder.Outcome.REFUSED)
            .filter(a -> timeline.stream().anyMatch(w -> inside(a.atNs(), w)))
            .count());
    c.put(
        "faultWindowsWithIntruderRefused",
        timeline.stream().filter(w -> refusedIn(w, attempts)).count());
    c.put(
        "noCertificateRefused",
        attempts.stream()
            .filter(a -> a.what().equals("produce-without-certificate"))
            .filter(a -> a.outcome() == Intruder.Outcome.REFUSED)
            .count());
    c.put("intruderAccepted", count(attempts, Intruder.Outcome.ACCEPTED));
    c.put("intruderUnanswered", count(attempts, Intruder.Outcome.OTHER));
    c.put("intruderSkipped", intruder == null ? 0L : intruder.skipped());
    return c;
  }

  /**
   * One note per fault window in which no intruder attempt ended refused, naming the attempts that
   * were in flight in it, so a run that fails on the intruder's coverage says why (every attempt
   * stuck on the faulty node, none started, ...). Empty for a plain run.
   */
  List<String> uncoveredWindows(List<FaultWindow> timeline) {
    List<String> out = new ArrayList<>();
    List<Intruder.Attempt> attempts = intruder == null ? List.of() : intruder.attempts();
    for (FaultWindow w : timeline) {
      if (intruder == null || refusedIn(w, attempts)) {
        continue;
      }
      List<String> inFlight =
          attempts.stream()
              .filter(a -> a.atNs() >= w.startNs() && (!w.healed() || a.startNs() <= w.endNs()))
              .map(Intruder.Attempt::describe)
              .toList();
      out.add(
          String.format(
              "intruder: no refusal in fault window %d (%s, %.1f-%s s); %d attempts skipped in the"
                  + " run; attempts in flight in it: %s",
              w.id(),
              w.label(),
              w.startNs() / 1e9,
              w.healed() ? String.format("%.1f", w.endNs() / 1e9) : "end",
              intruder.skipped(),
              inFlight.isEmpty() ? "none" : String.join("; ", inFlight)));
    }
    return out;
  }

  /**
   * What the figures say is wrong: a legitimate request refused, or the intruder let in. Empty for
   * a plain run and a run where security held.
   */
  static List<String> problems(Map<String, Long> counts) {
    List<String> out = new ArrayList<>();
    if (counts.getOrDefault("workloadAuthorizationFailures", 0L) > 0
        || counts.getOrDefault("workloadDenialsLogged", 0L) > 0) {
      out.add(
          "SECURITY: the workload's legitimate requests were refused: "
              + counts.get("workloadAuthorizationFailures")
              + " ops ended with an authorization error, "
              + counts.get("workloadDenialsLogged")
              + " denials of "
              + ChaosSecurity.WORKLOAD_PRINCIPAL
              + " in the node logs");
    }
    if (counts.getOrDefault("intruderAccepted", 0L) > 0) {
      out.add(
          "SECURITY: the intruder without ACLs was let in "
              + counts.get("intruderAccepted")
              + " times (see the harness log)");
    }
    if (counts.containsKey("intruderAttempts") && counts.get("intruderRefused") == 0) {
      out.add("SECURITY: the intruder was never refused: its refusals were not exercised");
    }
    return out;
  }

  private static boolean authorizationFailure(Op op) {
    return op.error() != null && op.error().contains("AUTHORIZATION_FAILED");
  }

  private static long count(List<Intruder.Attempt> attempts, Intruder.Outcome o) {
    return attempts.stream().filter(a -> a.outcome() == o).count();
  }

  /** Whether an attempt ended refused inside fault window {@code w}. */
  private static boolean refusedIn(FaultWindow w, List<Intruder.Attempt> attempts) {
    return attempts.stream()
        .anyMatch(a -> a.outcome() == Intruder.Outcome.REFUSED && inside(a.atNs(), w));
  }

  private static boolean inside(long ns, FaultWindow w) {
    return ns >= w.startNs() && (!w.healed() || ns <= w.endNs());
  }

  /**
   * Audit lines of the authorizer denying {@code principal} in the node logs past {@code from} (a
   * denial line may stand for more denials held back by its rate limit: any line is a refusal).
   */
  private static long denials(List<Path> logs, String principal, Map<Path, Long> from)
      throws IOException {
    String needle = "DENIED " + principal + " ";
    long n = 0;
    for (Path log : logs) {
      if (!Files.exists(log)) {
        continue;
      }
      try (InputStream in = Files.newInputStream(log)) {
        in.skipNBytes(Math.min(from.getOrDefault(log, 0L), Files.size(log)));
        BufferedReader r =
            new BufferedReader(new InputStreamReader(in, StandardCharsets.ISO_8859_1));
        n += r.lines().filter(l -> l.contains(needle)).count();
      }
    }
    return n;
  }
}
