/**
 * A broker's life as the metadata quorum sees it: {@link
 * dev.spool.quorum.lifecycle.BrokerLifecycle} (registration, heartbeats, metadata replay,
 * controlled shutdown) with its explicit {@link dev.spool.quorum.lifecycle.BrokerState} and the
 * {@link dev.spool.quorum.lifecycle.MetadataListener} the data plane implements. Named for what it
 * does rather than {@code broker}, which is the data plane's package ({@code dev.spool.broker}).
 */
package dev.spool.quorum.lifecycle;
