/**
 * The {@code spool} command line (picocli): {@code produce}, {@code consume}, {@code topic
 * create|list|describe|delete|configs|alter}, {@code cluster status|elect-leaders} and {@code perf
 * produce|consume|e2e}, built on the public client API only. {@link dev.spool.cli.SpoolCommand} is
 * the entry point and the hook through which the node module adds {@code node}.
 *
 * <p>Contracts scripts rely on: exit codes 0 success, 1 an operation failed, 2 usage error, 3 the
 * cluster could not be reached or timed out; errors are one {@code error: CODE: message} line on
 * stderr; {@code --output json}/{@code --json} print one JSON object per line on stdout (field
 * names documented in each command's help); the bootstrap list comes from {@code --bootstrap}, else
 * {@code SPOOL_BOOTSTRAP}, else {@code .spool-cluster/bootstrap}, else 127.0.0.1:9092.
 */
package dev.spool.cli;
