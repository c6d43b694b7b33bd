/**
 * The producer's machinery: per-partition batching ({@link
 * dev.spool.client.internal.producer.RecordAccumulator}) into RecordBatch v2 with the record
 * builder, bounded memory ({@link dev.spool.client.internal.producer.BufferPool}), Kafka's key
 * hashing and sticky partitioning, and the sender loop on the I/O thread whose ordering, retry and
 * idempotence rules live in the pure {@link dev.spool.client.internal.producer.ProduceState}.
 *
 * <p>What the producer assumes of the broker:
 *
 * <ul>
 *   <li>A produce request holds at most one batch per partition from this client, so the answer's
 *       {@code base_offset} is that batch's first offset; records get consecutive offsets.
 *   <li>{@code leader_epoch} in a produce request is checked: older than the leader's →
 *       FENCED_LEADER_EPOCH, newer → UNKNOWN_LEADER_EPOCH, with {@code current_leader} set when the
 *       broker knows better.
 *   <li>Idempotence: InitProducerId from any broker returns a producer id and epoch; per partition
 *       and producer id the leader keeps the sequences of the last five batches (also across leader
 *       changes and restarts) and answers a resend of one of them with its original {@code
 *       base_offset} and error NONE (DUPLICATE_SEQUENCE with the original offset is accepted as
 *       well); a batch whose base sequence is not the last one + 1 is refused with
 *       OUT_OF_ORDER_SEQUENCE without being appended; a stale producer epoch gets
 *       INVALID_PRODUCER_EPOCH; a producer id the partition does not know is accepted whatever its
 *       sequence (its state may have been removed with old segments).
 *   <li>Definite refusals (MESSAGE_TOO_LARGE, CORRUPT_MESSAGE, INVALID_RECORD, INVALID_TIMESTAMP,
 *       RECORD_LIST_TOO_LARGE, INVALID_REQUEST, ...) mean nothing of the batch was appended;
 *       REQUEST_TIMED_OUT and NOT_ENOUGH_REPLICAS_AFTER_APPEND may have appended it.
 *   <li>{@code timeout_ms} bounds how long an acks=all produce waits for the high watermark; {@code
 *       log_append_time_ms} is -1 unless the topic uses LogAppendTime.
 * </ul>
 */
package dev.spool.client.internal.producer;
