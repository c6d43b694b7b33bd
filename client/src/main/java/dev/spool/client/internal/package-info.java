/** Wiring shared by the clients: common config keys and the per-client network/metadata context. */
package dev.spool.client.internal;
