/**
 * The record-batch format, byte-compatible with Kafka's RecordBatch v2 (magic 2): a batch stored by
 * Spool can be sent as is to a Kafka client. {@link dev.spool.record.RecordBatch} is a
 * zero-allocation view with the field-by-field layout, {@link dev.spool.record.RecordCursor}
 * iterates records (layout there), {@link dev.spool.record.RecordBatchBuilder} builds a batch,
 * {@link dev.spool.record.MemoryRecords} walks several. Decompression is not supported: compressed
 * batches are recognised and refused by the cursor with {@link
 * dev.spool.record.UnsupportedCompressionException}, never read as garbage.
 */
package dev.spool.record;
