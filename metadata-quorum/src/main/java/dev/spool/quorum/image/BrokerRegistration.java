package dev.spool.quorum.image;

import dev.spool.common.HostPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;

/**
 * One broker's registration in the metadata image. Immutable.
 *
 * @param epoch the broker epoch: the metadata offset of the registration record; a restart of the
 *     broker (a new registration) always gets a larger one
 * @param incarnationId random id of the broker process that registered (a new one per start)
 * @param rack "" when the broker names no rack
 * @param fenced a fenced broker leads nothing and joins no ISR; a new registration starts fenced
 * @param inControlledShutdown the broker is shutting down on purpose: it takes no new leaderships
 *     or ISR places
 * @param kafkaEndpoint where Kafka's clients reach the broker's Kafka-protocol listener, or null
 *     when the broker has none ({@code kafka.listener} unset)
 * @param metadataVersions the range of metadata.version the broker's software supports
 * @param offlineDirs the data directories of this registration that failed (sorted, no duplicates;
 *     docs/architecture.md#storage-errors): the broker serves no replica there. Spool brokers have
 *     one data directory, so a broker with any offline directory has no storage left and is not
 *     eligible to lead or join an ISR; a new registration starts with none
 */
public record BrokerRegistration(
    int id,
    long epoch,
    String incarnationId,
    String host,
    int port,
    String rack,
    boolean fenced,
    boolean inControlledShutdown,
    HostPort kafkaEndpoint,
    MetadataVersion.Range metadataVersions,
    List<String> offlineDirs) {

  public BrokerRegistration {
    Objects.requireNonNull(incarnationId, "incarnationId");
    Objects.requireNonNull(host, "host");
    Objects.requireNonNull(rack, "rack");
    Objects.requireNonNull(metadataVersions, "metadataVersions");
    offlineDirs = List.copyOf(new TreeSet<>(offlineDirs));
  }

  /** A broker that supports metadata.version 1 only, with every data directory online. */
  public BrokerRegistration(
      int id,
      long epoch,
      String incarnationId,
      String host,
      int port,
      String rack,
      boolean fenced,
      boolean inControlledShutdown,
      HostPort kafkaEndpoint) {
    this(
        id,
        epoch,
        incarnationId,
        host,
        port,
        rack,
        fenced,
        inControlledShutdown,
        kafkaEndpoint,
        MetadataVersion.Range.ofRegistration(0, 0),
        List.of());
  }

  /** A broker without a Kafka-protocol listener. */
  public BrokerRegistration(
      int id,
      long epoch,
      String incarnationId,
      String host,
      int port,
      String rack,
      boolean fenced,
      boolean inControlledShutdown) {
    this(id, epoch, incarnationId, host, port, rack, fenced, inControlledShutdown, null);
  }

  /** A Kafka listener is optional (port 0); when there is one it needs a host and a real port. */
  public static boolean validKafkaEndpoint(String host, int port) {
    return port == 0 || (port > 0 && port <= 65535 && !host.isEmpty());
  }

  /** The Kafka endpoint a registration names, or null for none (port 0). */
  public static HostPort kafkaEndpoint(String host, int port) {
    return port == 0 ? null : new HostPort(host, port);
  }

  /**
   * Unfenced, not shutting down and no data directory offline: may lead partitions and join ISRs.
   */
  public boolean isEligible() {
    return !fenced && !inControlledShutdown && offlineDirs.isEmpty();
  }

  /** Whether a data directory of this registration failed. */
  public boolean hasOfflineDirs() {
    return !offlineDirs.isEmpty();
  }

  public boolean hasRack() {
    return !rack.isEmpty();
  }

  BrokerRegistration withFenced(boolean f) {
    return with(f, f ? false : inControlledShutdown, offlineDirs);
  }

  BrokerRegistration withControlledShutdown() {
    return with(fenced, true, offlineDirs);
  }

  /** This registration with {@code dirs} offline as well (the constructor sorts and dedupes). */
  BrokerRegistration withOfflineDirs(List<String> dirs) {
    List<String> all = new ArrayList<>(offlineDirs);
    all.addAll(dirs);
    return with(fenced, inControlledShutdown, all);
  }

  private BrokerRegistration with(boolean f, boolean shutdown, List<String> dirs) {
    return new BrokerRegistration(
        id,
        epoch,
        incarnationId,
        host,
        port,
        rack,
        f,
        shutdown,
        kafkaEndpoint,
        metadataVersions,
        dirs);
  }
}
