/**
 * Kafka's wire protocol on a second listener ({@code kafka.listener}), so Kafka's own clients,
 * tools and libraries work against Spool unchanged. {@link dev.spool.broker.kafka.KafkaProtocol}
 * plugs into the same connection machinery as Spool's protocol (ordering, limits, backpressure,
 * closing on bad input); {@code KafkaApis} only translates: each request goes through the codec
 * ({@link dev.spool.broker.kafka.codec}) to the very handler instances Spool's listener uses, and
 * so to the same replica manager, logs and quorum calls. See docs/architecture.md, "The Kafka
 * listener".
 */
package dev.spool.broker.kafka;
