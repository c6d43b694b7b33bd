package dev.spool.coordinator.group.api;

/** One group of ListGroups: its id and state name (Empty, Assigning, Reconciling, Stable). */
public record GroupListing(String groupId, String state) {}
