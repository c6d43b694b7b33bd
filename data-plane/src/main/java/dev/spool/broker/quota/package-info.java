/**
 * Client quotas (docs/security.md#quotas): Kafka's produce and fetch byte rates per user and client
 * id, read from the metadata image, measured over Kafka's sampled windows and answered with a
 * throttle time and a muted connection.
 */
package dev.spool.broker.quota;
