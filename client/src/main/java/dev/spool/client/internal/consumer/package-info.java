/**
 * The consumer's machinery: the fetch engine ({@link dev.spool.client.internal.consumer.Fetcher},
 * application-thread owned), per-partition answers decoded lazily ({@link
 * dev.spool.client.internal.consumer.CompletedFetch}), and offset lookups with retries ({@link
 * dev.spool.client.internal.consumer.OffsetLookup}).
 *
 * <p>What the consumer assumes of the broker:
 *
 * <ul>
 *   <li>A fetch answers every requested partition; its record data may start with a batch that
 *       begins below {@code fetch_offset} (the consumer skips those records) and may end with a
 *       partial batch (ignored, fetched again); at least one whole batch comes when there is data,
 *       even above the byte limits; nothing above the high watermark is returned to consumers
 *       ({@code replica_id = -1}).
 *   <li>With no data the broker holds the fetch up to {@code max_wait_ms} ({@code min_bytes}).
 *   <li>{@code current_leader_epoch} is checked like produce's leader epoch. When {@code
 *       last_fetched_epoch} (the leader epoch of the last batch the consumer has, -1 = none) does
 *       not match the leader's history at {@code fetch_offset}, the answer carries {@code
 *       diverging_epoch} (largest epoch &lt;= the one sent, and its end offset) and no records.
 *   <li>A fetch offset below the log start offset or above the log end offset gets
 *       OFFSET_OUT_OF_RANGE (between the high watermark and the log end it waits, then answers
 *       empty).
 *   <li>ListOffsets: -2 = log start offset, -1 = high watermark, else the first offset whose record
 *       timestamp is &gt;= the one asked (-1 when none), with {@code current_leader_epoch} checked
 *       as in fetch.
 * </ul>
 */
package dev.spool.client.internal.consumer;
