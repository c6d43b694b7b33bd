/**
 * The partition log: Spool's storage engine (docs/architecture.md#storage).
 *
 * <h2>On disk</h2>
 *
 * <pre>
 * &lt;data.dir&gt;/
 *   .spool_cleanshutdown                 empty marker, written last by a clean shutdown, removed at open
 *   recovery-point-offset-checkpoint     "0\n&lt;n&gt;\n&lt;topic&gt; &lt;partition&gt; &lt;offset&gt;\n..." (Kafka's text format)
 *   replication-offset-checkpoint        high watermarks, same format
 *   log-start-offset-checkpoint          log start offsets, same format
 *   cleaner-offset-checkpoint            the cleaner's state per partition (see internal.CleanerCheckpoints)
 *   &lt;topic&gt;-&lt;partition&gt;/
 *     00000000000000000000.log           record batches back to back (Kafka RecordBatch v2)
 *     00000000000000000000.index         offset index, 8-byte entries (see internal.OffsetIndex)
 *     00000000000000000000.timeindex     time index, 12-byte entries (see internal.TimeIndex)
 *     00000000000000001234.snapshot      producer state at offset 1234 (see internal.ProducerSnapshotCodec)
 *     leader-epoch-checkpoint            "0\n&lt;n&gt;\n&lt;epoch&gt; &lt;startOffset&gt;\n..."
 *     partition.metadata                 "version: 0\ntopic_id: &lt;id&gt;\n"
 *     00000000000000000000.log.cleaned   a cleaned segment being written (deleted at open)
 *     00000000000000000000.log.swap      a cleaned segment committed to replace the ones its offsets
 *                                        cover (the replacement is finished at open)
 *   &lt;topic&gt;-&lt;partition&gt;.&lt;uuid&gt;-delete/  a deleted partition, removed after file.delete.delay.ms
 * </pre>
 *
 * <h2>Threads</h2>
 *
 * A {@link dev.spool.broker.log.PartitionLog} is mutated by one owner thread at a time (a
 * concurrent mutation is detected and refused); reads, timestamp lookups and offset getters are
 * lock-free from any thread. {@link dev.spool.broker.log.LogManager} owns a scheduler for
 * checkpoints, retention (handed to the partition's owner through a {@code PartitionExecutor}),
 * post-roll flushes and delayed file deletion. The {@link dev.spool.broker.log.LogCleaner}'s
 * threads clean compacted partitions, handing every change of a log to its owner through the same
 * executor (docs/threads.md#log-manager).
 *
 * <h2>Choices, and where Spool differs from Kafka</h2>
 *
 * <ul>
 *   <li>Compaction leaves offset gaps, so recovery checks that offsets only grow and stay within
 *       the segment's range and below the next segment's base (which still catches most corrupted
 *       base offsets, a field the CRC does not cover) rather than contiguity.
 *   <li>Cleaning groups are swapped one by one on the partition's owner thread, not under a log
 *       lock; the cleaner checkpoint also records when the earliest kept tombstone expires, so a
 *       log whose tombstones are due is cleaned again without new writes.
 *   <li>Compressed batches are accepted and stored as opaque bytes; their records cannot be
 *       iterated, so their timestamps are checked at batch level and a timestamp lookup landing in
 *       one answers with its base offset.
 *   <li>Every batch (not every append) may get an index entry, so a fetch usually finds its batch
 *       with one header read.
 *   <li>After a crash, recovery scans from the segment holding the recovery point; corruption below
 *       the recovery point (flushed data) is logged as an error and still ends the log there, since
 *       nothing after a bad batch can be trusted.
 *   <li>{@code segment.ms} counts from when the active segment was created or, after a restart,
 *       opened (Kafka uses the first batch's timestamp).
 *   <li>No transaction index yet: transactional batches are stored and replicated, but aborted
 *       ranges are not tracked (read_committed needs it; it waits for transactions).
 * </ul>
 */
package dev.spool.broker.log;
