/**
 * The broker side: {@link dev.spool.quorum.broker.BrokerLifecycle} (registration, heartbeats,
 * metadata replay, controlled shutdown) with its explicit {@link
 * dev.spool.quorum.broker.BrokerState} and the {@link dev.spool.quorum.broker.MetadataListener} the
 * data plane implements.
 */
package dev.spool.quorum.broker;
