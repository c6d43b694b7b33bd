/**
 * The recorded history of a chaos run, in Jepsen's shape (jepsen-io/jepsen, {@code
 * jepsen/src/jepsen/tests/kafka.clj}): every client operation is an {@code invoke} followed by one
 * {@code ok}, {@code fail} or {@code info} completion of the same process, stamped with monotonic
 * nanoseconds since the run started.
 *
 * <ul>
 *   <li>{@code send}: one unique long value to one partition; an {@code ok} carries the
 *       acknowledged offset.
 *   <li>{@code poll}: one consumer poll; an {@code ok} carries, per partition, the [offset, value]
 *       pairs returned, in order. The consumer is the op's process.
 *   <li>{@code assign}: the process's consumer takes these partitions (optionally seeking to their
 *       beginning).
 * </ul>
 *
 * <p><b>Failed definitely vs indeterminate.</b> {@code fail} means the op certainly had no effect;
 * {@code info} means it may or may not have. The rules for sends are in {@link
 * dev.spool.chaos.history.SendErrors}. A poll or assign that fails without touching the consumer's
 * position is {@code fail}; one that timed out or lost its connection is {@code info}. After any
 * {@code info} the process is crashed and the worker continues as a new process (a new consumer
 * session), exactly as Jepsen does; {@link dev.spool.chaos.history.HistoryRecorder} enforces that.
 * An invocation with no completion (the run ended first) counts as {@code info}.
 *
 * <p><b>White-box records</b> share the file: {@link dev.spool.chaos.history.ReplicaSnapshot} (a
 * replica's batches below its high watermark: base/last offset, leader epoch, CRC) and {@link
 * dev.spool.chaos.history.EpochObservation} (a node's view of a partition's leader and epoch),
 * {@link dev.spool.chaos.history.ClientLeaderView} (a producer's).
 *
 * <p>On disk: {@code history.jsonl}, one JSON object per line with a {@code kind} of {@code op},
 * {@code replica}, {@code epoch} or {@code client-leader}; the layout of each is on its record.
 * Written by {@link dev.spool.chaos.history.HistoryWriter} with a flush per line, read back by
 * {@link dev.spool.chaos.history.HistoryReader}, which survives a torn last line.
 */
package dev.spool.chaos.history;
