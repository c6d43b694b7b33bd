/**
 * Pure checkers over a recorded {@link dev.spool.chaos.history.History}, one class per anomaly,
 * with the names and meanings of Jepsen's Kafka workload (jepsen-io/jepsen, {@code
 * jepsen/src/jepsen/tests/kafka.clj}, function {@code analysis}), the workload behind Jepsen's
 * Redpanda 21.10.1 analysis (jepsen.io/analyses/redpanda-21.10.1, 2022), which reported aborted
 * reads, inconsistent offsets and lost/stale messages with it:
 *
 * <ul>
 *   <li>{@link dev.spool.chaos.checker.LostWrite lost-write}, {@link dev.spool.chaos.checker.Unseen
 *       unseen}, {@link dev.spool.chaos.checker.Duplicate duplicate}, {@link
 *       dev.spool.chaos.checker.InconsistentOffsets inconsistent-offsets}, {@link
 *       dev.spool.chaos.checker.NonmonotonicSend nonmonotonic-send}, {@link
 *       dev.spool.chaos.checker.NonmonotonicPoll nonmonotonic-poll}, {@link
 *       dev.spool.chaos.checker.PollSkip poll-skip}, {@link dev.spool.chaos.checker.AbortedRead
 *       aborted-read} (Jepsen's G1a);
 *   <li>white-box: {@link dev.spool.chaos.checker.ReplicaDivergence replica-divergence} and {@link
 *       dev.spool.chaos.checker.LeaderEpochMonotonic leader-epoch-monotonic};
 *   <li>{@link dev.spool.chaos.checker.Availability}: outage and throughput figures, which never
 *       make a run invalid.
 * </ul>
 *
 * <p>{@link dev.spool.chaos.checker.CheckerSuite} runs them all and returns a {@link
 * dev.spool.chaos.checker.Verdict}. Shared derived data (version orders, writers, readers) is
 * computed once in {@link dev.spool.chaos.checker.Analysis}. Every class here is a pure function of
 * its input: no I/O, no clock, no randomness.
 */
package dev.spool.chaos.checker;
