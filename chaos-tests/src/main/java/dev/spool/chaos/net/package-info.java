/**
 * Fault-injection tooling at the edges: {@link dev.spool.chaos.net.NetNamespaces} (a network
 * namespace per node on 10.87.x.0/24, blackhole-route partitions per direction and plane; root
 * only), {@link dev.spool.chaos.net.FaultProxy} and {@link dev.spool.chaos.net.ProxyGroup} (Netty
 * TCP proxies on client links: latency, bandwidth, refusals, resets, black hole), {@link
 * dev.spool.chaos.net.Capabilities} (what this machine allows, said loudly) and {@link
 * dev.spool.chaos.net.CommandRunner} (each external command logged, failures explained).
 */
package dev.spool.chaos.net;
