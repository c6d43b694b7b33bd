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
 *   &lt;topic&gt;-&lt;partition&gt;/
 *     00000000000000000000.log           record batches back to back (Kafka RecordBatch v2)
 *     00000000000000000000.index         offset index, 8-byte entries (see internal.OffsetIndex)
 *     00000000000000000000.timeindex     time index, 12-byte entries (see internal.TimeIndex)
 *     00000000000000001234.snapshot      producer state at offset 1234 (see internal.ProducerSnapshotCodec)
 *     leader-epoch-checkpoint            "0\n&lt;n&gt;\n&lt;epoch&gt; &lt;startOffset&gt;\n..."
 *     partition.metadata                 "version: 0\ntopic_id: &lt;id&gt;\n"
 *   &lt;topic&gt;-&lt;partition&gt;.&lt;uuid&gt;-delete/  a deleted partition, removed after file.delete.delay.ms
 * </pre>
 *
 * <h2>Threads</h2>
 *
 * A {@link dev.spool.broker.log.PartitionLog} is mutated by one owner thread at a time (a
 * concurrent mutation is detected and refused); reads, timestamp lookups and offset getters are
 * lock-free from any thread. {@link dev.spool.broker.log.LogManager} owns a scheduler for
 * checkpoints, retention (handed to the partition's owner through a {@code PartitionExecutor}),
 * post-roll flushes and delayed file deletion.
 *
 * <h2>Choices, and where Spool differs from Kafka</h2>
 *
 * <ul>
 *   <li>Spool never compacts, so offsets are contiguous; recovery requires it, which also catches a
 *       corrupted base offset (a field the CRC does not cover).
 *   <li>Compressed batches are checked record by record on the leader, streamed through a small
 *       window with a bound on their inflated size ({@code message.max.decompressed.bytes}, a topic
 *       config Kafka does not have), stored as sent when the topic's {@code compression.type} is
 *       {@code producer} or their own codec, else recompressed (Kafka's LogValidator rules;
 *       docs/architecture.md#compressed-batches). A timestamp lookup landing in one inflates it and
 *       answers with the exact record.
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
