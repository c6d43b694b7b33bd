/**
 * The record-batch format, byte-compatible with Kafka's RecordBatch v2 (magic 2): a batch stored by
 * Spool can be sent as is to a Kafka client, and a batch any Kafka producer writes is read here,
 * compressed or not. {@link dev.spool.record.RecordBatch} is a zero-allocation view with the
 * field-by-field layout, {@link dev.spool.record.RecordCursor} iterates records (layout there;
 * compressed batches are inflated into an array it reuses), {@link
 * dev.spool.record.RecordStreamReader} checks the records of an untrusted batch in one pass through
 * a small window (bounding what it may inflate to, optionally feeding the inflated bytes to another
 * codec), {@link dev.spool.record.RecordBatchBuilder} builds a batch (compressed with a {@link
 * dev.spool.record.Compression}), {@link dev.spool.record.MemoryRecords} walks several. {@link
 * dev.spool.record.Compression} holds the codecs (gzip, snappy, lz4, zstd; the frame formats Kafka
 * writes are described there).
 */
package dev.spool.record;
