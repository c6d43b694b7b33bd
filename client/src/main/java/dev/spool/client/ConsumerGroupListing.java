package dev.spool.client;

/** One consumer group of {@link Admin#listConsumerGroups}: its id and state. Immutable. */
public record ConsumerGroupListing(String groupId, String state) {}
