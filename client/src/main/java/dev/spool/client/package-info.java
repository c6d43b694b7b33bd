/**
 * The Spool client library: {@link dev.spool.client.Producer}, {@link dev.spool.client.Consumer}
 * and {@link dev.spool.client.Admin}, each configured with Kafka's key names through {@link
 * dev.spool.client.ProducerConfig}, {@link dev.spool.client.ConsumerConfig} and {@link
 * dev.spool.client.AdminConfig} (unknown keys are rejected, {@code help()} prints the tables).
 *
 * <p><b>Errors</b> are {@link dev.spool.common.SpoolException}s carrying an {@link
 * dev.spool.common.ErrorCode} (both in the common layer the whole system shares, as is {@link
 * dev.spool.common.TopicPartition}); whether retrying can help is {@code retriable()}, whether the
 * client's view of leaders is stale is {@code refreshesMetadata()}. The clients retry retriable
 * errors themselves (within {@code delivery.timeout.ms} / {@code default.api.timeout.ms}); what
 * reaches the application is final. Programming errors (closed client, unassigned partition) are
 * {@link java.lang.IllegalStateException}s.
 *
 * <p><b>Threads</b>: every client has one I/O thread (Netty, epoll when available). Producer and
 * Admin are thread-safe; a Consumer is used by one thread at a time. Futures complete on the I/O
 * thread: callbacks must not block.
 *
 * <p><b>Defaults that differ from Kafka</b>: the producer's {@code batch.size} is 128 KiB (see
 * {@link dev.spool.client.ProducerConfig}); idempotence and {@code acks=all} are on, as in Kafka
 * 3+. Everything else keeps Kafka's defaults so that Kafka users' expectations hold.
 *
 * <p>Everything under {@code dev.spool.client.internal} may change without notice.
 */
package dev.spool.client;
